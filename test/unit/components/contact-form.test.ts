import { afterEach, describe, expect, it } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import type { CharlaContactForm } from '../../../src/components/contact-form/contact-form.ts';
import { makeContext, msg, settle } from './fixture.ts';

/** A contact-information form on the page, filled with `values` and submitted. */
async function submit(values: Partial<Record<'name' | 'phone' | 'email', string>>) {
  const f = makeContext();
  const el = document.createElement('charla-contact-form') as CharlaContactForm;
  el.message = msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } });
  el.actions = f.context.actions;
  document.body.append(el);
  await settle(el);
  const root = el.shadowRoot!;
  const q = within(root as unknown as HTMLElement);
  const field = (label: string) => q.getByLabelText(label) as HTMLInputElement;
  const fields = { name: field('Nombre'), phone: field('Teléfono'), email: field('Correo electrónico') };
  for (const [key, value] of Object.entries(values)) fields[key as keyof typeof fields].value = value;
  q.getByRole('button', { name: 'Enviar datos' }).click();
  await settle(el);
  /** The text of the elements that describe a field (its aria-describedby). */
  const description = (input: HTMLInputElement) =>
    (input.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => root.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim();
  const submitted = () => f.callsOf('submitContactInfo');
  return { el, root, q, fields, description, submitted, sent: () => submitted().length > 0 };
}

afterEach(() => document.body.replaceChildren());

describe('<charla-contact-form>', () => {
  it.each([
    '((((((',
    '()-. ()',
    '12-34',
    '+',
    '+34 6',
    '1234567890123456',
    'abc 600 111 222',
    '600 111 222 ext 3',
    '++34 600 111 222',
    '600 111 222 +',
  ])('refuses %j as a phone, under the phone field', async (phone) => {
    const { fields, description, sent } = await submit({ name: 'Ana', phone });
    expect(sent()).toBe(false);
    expect(fields.phone.getAttribute('aria-invalid')).toBe('true');
    expect(description(fields.phone)).toBe('Escribe un teléfono válido.');
  });

  it.each([
    '+34 600 111 222',
    '(55) 1234-5678',
    '600.111.222',
    '+1 (555) 123-4567',
    '612345',
    '+525512345678',
  ])('takes %j as a phone', async (phone) => {
    const { sent } = await submit({ phone });
    expect(sent()).toBe(true);
  });

  it.each([
    ['+٣٤ ٦٠٠ ١١١ ٢٢٢', '+34 600 111 222'],
    ['۰۹۱۲ ۳۴۵ ۶۷۸۹', '0912 345 6789'],
    ['+९१ ९८७६५ ४३२१०', '+91 98765 43210'],
    ['０３-１２３４-５６７８', '03-1234-5678'],
    ['＋８１\u3000（０３）１２３４－５６７８', '+81 (03)1234-5678'],
    ['𝟔𝟎𝟎 𝟏𝟏𝟏 𝟐𝟐𝟐', '600 111 222'],
  ])('takes %j (another script’s digits) and sends it in ASCII digits, %j', async (typed, phone) => {
    const { submitted } = await submit({ phone: typed });
    expect(submitted()[0]?.args[1]).toMatchObject({ phone });
  });

  it('reports every invalid field at once, each error under its own field, and focuses the first', async () => {
    const { root, q, fields, description, sent } = await submit({
      name: 'Ana',
      phone: '((((((',
      email: 'ana@',
    });
    expect(sent()).toBe(false);
    expect(q.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'Escribe un teléfono válido.',
      'Escribe un correo electrónico válido.',
    ]);
    for (const [input, text] of [
      [fields.phone, 'Escribe un teléfono válido.'],
      [fields.email, 'Escribe un correo electrónico válido.'],
    ] as const) {
      expect(input.getAttribute('aria-invalid')).toBe('true');
      expect(description(input)).toBe(text);
      // Under its own field: the next element after the field's label.
      expect(input.closest('label')!.nextElementSibling!.textContent).toBe(text);
    }
    expect(fields.name.getAttribute('aria-invalid')).toBe('false');
    expect(fields.name.hasAttribute('aria-describedby')).toBe(false);
    expect(root.activeElement).toBe(fields.phone);
  });

  it('clears a field’s error once it is right, keeping the others', async () => {
    const { el, root, q, fields, description } = await submit({ phone: '((((((', email: 'ana@' });
    fields.phone.value = '+34 600 111 222';
    q.getByRole('button', { name: 'Enviar datos' }).click();
    await settle(el);
    expect(fields.phone.getAttribute('aria-invalid')).toBe('false');
    expect(fields.phone.hasAttribute('aria-describedby')).toBe(false);
    expect(q.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'Escribe un correo electrónico válido.',
    ]);
    expect(description(fields.email)).toBe('Escribe un correo electrónico válido.');
    expect(root.activeElement).toBe(fields.email);
  });

  it('nothing typed: says so, every field invalid and described by it, focus on the first', async () => {
    const { root, fields, description, sent } = await submit({});
    expect(sent()).toBe(false);
    for (const input of Object.values(fields)) {
      expect(input.getAttribute('aria-invalid')).toBe('true');
      expect(description(input)).toBe('Completa al menos un dato.');
    }
    expect(root.activeElement).toBe(fields.name);
  });

  it.each(['\u200b', '\u2800\u2800', '\u202e', ' \u200d\u2066 '])(
    'a name of nothing visible (%j) is no name: says so rather than sending what the service refuses',
    async (name) => {
      const { fields, description, sent } = await submit({ name });
      expect(sent()).toBe(false);
      expect(description(fields.name)).toBe('Completa al menos un dato.');
    },
  );

  it('sends a name without its direction controls (they would reverse the phone after it)', async () => {
    const { submitted } = await submit({ name: '\u202eAna Ruiz', phone: '+34 600 111 222' });
    expect(submitted()[0]?.args[1]).toMatchObject({ name: 'Ana Ruiz', phone: '+34 600 111 222' });
  });

  it('sends a name as one line: tabs, line breaks and other control characters become a space', async () => {
    const { submitted } = await submit({ name: ' Ana\tRuiz\u0007 \r\nGil ', phone: '+34 600 111 222' });
    expect(submitted()[0]?.args[1]).toMatchObject({ name: 'Ana Ruiz Gil' });
  });

  it('counts a name in characters, not UTF-16 units: 200 emoji go, 201 are refused under the field, nothing cut', async () => {
    const { fields, submitted } = await submit({ name: '😀'.repeat(200) });
    // No maxlength: it would cut a paste of emoji at 100, silently.
    expect(fields.name.hasAttribute('maxlength')).toBe(false);
    expect(submitted()[0]?.args[1]).toMatchObject({ name: '😀'.repeat(200) });
    const over = await submit({ name: '😀'.repeat(201) });
    expect(over.sent()).toBe(false);
    expect(over.fields.name.getAttribute('aria-invalid')).toBe('true');
    expect(over.description(over.fields.name)).toBe('El nombre pasa de 200 caracteres: acórtalo.');
  });
});

/**
 * Harness smoke test for the `unit` project: the contract's browser-side
 * helpers behave, and the toolchain compiles Lit's legacy decorators the way
 * the components rely on (experimentalDecorators, useDefineForClassFields: false).
 */
import { describe, expect, it } from 'vitest';
import { LitElement, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { ERRORS, ROUTES, errorBody, isErrorBody, routePath, type ErrorBody } from '../../types/index.ts';

@customElement('charla-smoke-probe')
class CharlaSmokeProbe extends LitElement {
  @property({ type: String, reflect: true }) label = 'hola';

  override render() {
    return html`<p part="label">${this.label}</p>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-smoke-probe': CharlaSmokeProbe;
  }
}

describe('errorBody()', () => {
  it('builds the interface error body for a catalogue entry', () => {
    const body: ErrorBody = errorBody('SIGNED_URL_ERROR');
    expect(body).toEqual({
      message: 'The signed address could not be generated.',
      statusMessage: 'failed',
      status: 0,
      error: {
        code: 'E1126',
        key: 'SIGNED_URL_ERROR',
        description: 'The signed address could not be generated.',
        developerMessages: {
          es: 'No se pudo generar la dirección firmada.',
          en: 'The signed address could not be generated.',
        },
        clientMessages: { es: 'No se pudo obtener el archivo.', en: 'The file could not be retrieved.' },
      },
      validationError: {},
      data: {},
    });
    expect(isErrorBody(body)).toBe(true);
  });

  it('keeps a given message, validation errors and data, and copies the catalogue texts', () => {
    const body = errorBody('VALIDATION_ERROR', {
      message: ['limit must be <= 50'],
      validationError: { '/limit': 'must be <= 50' },
      data: { field: 'limit' },
    });
    expect(body.message).toEqual(['limit must be <= 50']);
    expect(body.validationError).toEqual({ '/limit': 'must be <= 50' });
    expect(body.data).toEqual({ field: 'limit' });
    body.error.clientMessages['es'] = 'changed';
    expect(ERRORS.VALIDATION_ERROR.clientMessages.es).toBe('Revisa los datos enviados.');
  });

  it('is told apart from success bodies by isErrorBody()', () => {
    expect(isErrorBody({ message: [], status: 1, statusMessage: 'success' })).toBe(false);
    expect(isErrorBody({ status: 0, error: {} })).toBe(false);
    expect(isErrorBody(null)).toBe(false);
    expect(isErrorBody('E0000')).toBe(false);
  });
});

describe('routePath()', () => {
  it('fills placeholders with URI-encoded values', () => {
    expect(routePath(ROUTES.botMessages, { botId: 'bot 1/ñ?x=y' })).toBe(
      '/v1/bots/bot%201%2F%C3%B1%3Fx%3Dy/messages',
    );
    expect(routePath(ROUTES.widgetRoomMembers, { roomId: 42 })).toBe('/v1/widget/rooms/42/members');
    expect(routePath(ROUTES.listCampaigns)).toBe('/v1/campaigns');
  });

  it('throws when a parameter is missing', () => {
    expect(() => routePath(ROUTES.campaign, {})).toThrow(/campaignId/);
  });
});

describe('Lit legacy decorators under Vitest', () => {
  it('registers, renders and reflects a decorated property', async () => {
    const el = document.createElement('charla-smoke-probe');
    document.body.append(el);
    await el.updateComplete;
    expect(customElements.get('charla-smoke-probe')).toBe(CharlaSmokeProbe);
    expect(el.shadowRoot?.querySelector('[part="label"]')?.textContent).toBe('hola');

    el.label = 'adiós';
    await el.updateComplete;
    expect(el.getAttribute('label')).toBe('adiós');
    expect(el.shadowRoot?.querySelector('[part="label"]')?.textContent).toBe('adiós');
    el.remove();
  });
});

/**
 * Explicit direction controls (U+202E and the like): in a name they disguise it
 * (`factura\u202Efdp.exe` shows as `facturaexe.pdf`). One place for the service's names
 * that lose them: a contacts message's summary, an upload's stored name, a download's name.
 */
import { DIRECTION_CONTROL_PATTERN } from '../types/index.ts';

const DIRECTION_CONTROLS = new RegExp(DIRECTION_CONTROL_PATTERN, 'gu');

export const withoutDirectionControls = (name: string): string => name.replace(DIRECTION_CONTROLS, '');

// A 422's plain messages (field-errors.ts) put on a form: the gate override and the incident change alike.
import type { PlainErrors } from './field-errors.ts';

/**
 * Shows `plain` on a form: each field's message in its `[data-error=<field>]` paragraph (the others hidden),
 * the rest in `general`, and focus on the first field said to be wrong.
 */
export function showPlainErrors(form: HTMLFormElement, fieldErrors: readonly HTMLElement[], general: HTMLElement, plain: PlainErrors): void {
  for (const p of fieldErrors) {
    const said = plain.fields.get(`/${p.dataset.error}`);
    p.hidden = said === undefined;
    p.textContent = said ?? '';
  }
  if (plain.general) {
    general.hidden = false;
    general.textContent = plain.general;
  }
  const first = fieldErrors.find((p) => !p.hidden);
  if (first) (form.elements.namedItem(first.dataset.error as string) as HTMLElement).focus();
}

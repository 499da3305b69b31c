// What the appointment schema cannot say (POST /v1/gate/appointments): a vessel_imo must carry a valid IMO
// check digit, so a typo cannot link a container to some other ship (issue 23: grouping joins a gate event
// to the incident of the vessel its container is booked on).

/** IMO ship identification number: 7 digits, the last the sum of the first six times 7, 6, 5, 4, 3, 2, modulo 10. */
export function isImoNumber(n: number): boolean {
  if (!Number.isInteger(n) || n < 1_000_000 || n > 9_999_999) return false;
  const digits = String(n).split('').map(Number);
  const sum = digits.slice(0, 6).reduce((acc, d, i) => acc + d * (7 - i), 0);
  return sum % 10 === digits[6];
}

export interface AppointmentProblem {
  path: string;
  message: string;
}

/** Every appointment's vessel_imo with a wrong check digit; assumes nothing of a body that failed its schema. */
export function appointmentProblems(body: unknown): AppointmentProblem[] {
  const list = (body as { appointments?: unknown } | null)?.appointments;
  if (!Array.isArray(list)) return [];
  return list.flatMap((a, i) => {
    const imo = (a as { vessel_imo?: unknown } | null)?.vessel_imo;
    return typeof imo === 'number' && Number.isInteger(imo) && imo >= 1_000_000 && imo <= 9_999_999 && !isImoNumber(imo)
      ? [{ path: `/appointments/${i}/vessel_imo`, message: `${imo} is not an IMO number: its check digit does not match` }]
      : [];
  });
}

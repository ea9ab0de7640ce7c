/** A read payload that is already JSON text (ledger rows pass through byte for byte, D9). */
export class RawJson {
  constructor(readonly text: string) {}
}

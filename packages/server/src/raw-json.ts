/** A read payload that is already JSON text (ledger rows pass through byte for byte, exactly as hashed). */
export class RawJson {
  constructor(readonly text: string) {}
}

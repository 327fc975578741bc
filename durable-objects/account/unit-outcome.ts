/**
 * What settling a unit hold (a product whose credit buys several units, IP: five) comes to, as far as it is decided by
 * the hold alone. Used by the account's object when it settles and by the walk when it answers before settling
 * (src/engines/walk/walk.ts), so both read one rule and the answer says exactly what the ledger will charge.
 */
export interface UnitHoldShape {
  /** Prepaid units the hold took from the pool. */
  held: number;
  /** Credits the hold bought. */
  credits: number;
  /** Units of those credits lent to the pool when the hold was made (fewer than `perCredit`). */
  lent: number;
  perCredit: number;
}

export interface UnitOutcome {
  /** Credits each item reports, in the order of the units given. */
  perItem: number[];
  /** Credits charged: the hold's credits, or none. */
  charge: number;
  /** Units that go back to the pool. */
  back: number;
}

/**
 * The outcome when nothing but the hold decides it, else null: a hold that bought no credit (charge 0; the prepaid
 * units it did not use go back), or one whose answers used every unit its credits kept (charge exactly its credits;
 * its lent units are the pool's, used or not). Otherwise (an opener whose answers left kept units unused, e.g. an
 * unplaced IP) whether a credit is given back depends on what others did with its lent units: settling decides.
 */
export function unitOutcome(hold: UnitHoldShape, units: number[]): UnitOutcome | null {
  const used = units.reduce((a, b) => a + Math.max(0, b), 0);
  const fromHeld = Math.min(hold.held, used);
  const kept = hold.credits * hold.perCredit - hold.lent;
  const fromCredits = used - fromHeld;
  const back = hold.held - fromHeld;
  if (hold.credits === 0) return fromCredits === 0 ? { perItem: units.map(() => 0), charge: 0, back } : null;
  if (fromCredits !== kept) return null;
  return { perItem: unitsPerItem(units, fromHeld, hold.credits, hold.perCredit), charge: hold.credits, back };
}

/**
 * Credits each item reports: its first `covered` units are paid for already (prepaid units, or units of credits given
 * back), then the item that opens each of the `charge` credits reports 1 and the next `perCredit - 1` units report 0.
 */
export function unitsPerItem(units: number[], covered: number, charge: number, perCredit: number): number[] {
  let left = covered;
  let open = 0;
  let opening = charge;
  return units.map((n) => {
    let bought = 0;
    for (let u = 0; u < n; u++) {
      if (left > 0) left--;
      else if (open > 0) open--;
      else if (opening > 0) opening--, bought++, (open = perCredit - 1);
    }
    return bought;
  });
}

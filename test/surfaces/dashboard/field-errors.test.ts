/**
 * The one field-error list of the dashboard's pages (src/surfaces/dashboard/pages/field-errors.tsx): the API's
 * `error.errors`, one line per field, on the keys, monitors, policies and suppressions pages alike.
 */
import { describe, expect, it } from "vitest";
import { FieldErrors } from "../../../src/surfaces/dashboard/pages/field-errors";

const html = async (errors?: Record<string, string[]>) => String(await FieldErrors({ errors }));

describe("dashboard: field errors", () => {
  it("lists each field with its messages, escaped", async () => {
    expect(await html({ "emails.0": ["Invalid email.", "Too long."], reason: ["At most 64 <characters>."] })).toBe(
      '<ul class="notice warn"><li>emails.0: Invalid email. Too long.</li>' +
        "<li>reason: At most 64 &lt;characters&gt;.</li></ul>",
    );
  });

  it("renders nothing without errors", async () => {
    expect(FieldErrors({})).toBeNull();
  });
});

/**
 * Time zones of a number (docs/phone.md, `timezones`): the longest prefix libphonenumber's map holds; the calling
 * code's own entry (every zone of the country) only for a geographical number, or a country of one zone.
 */
import { describe, expect, it } from "vitest";
import { indexRows, zonesOf } from "../../../src/products/phone/lookup";
import { readItem } from "../../../src/products/phone/numbering";

const NANP = "America/Adak&America/Anchorage&America/Chicago&America/New_York&Pacific/Honolulu";
const index = indexRows([
  { dataset: "phone-timezones", callingCode: "1", prefix: "", value: NANP },
  { dataset: "phone-timezones", callingCode: "1", prefix: "212", value: "America/New_York" },
  { dataset: "phone-timezones", callingCode: "41", prefix: "", value: "Europe/Zurich" },
]);
const zones = (phone: string) => {
  const reading = readItem({ phone });
  return { line_type: reading.line_type, zones: zonesOf(index, reading) };
};

describe("zonesOf", () => {
  it("gives a geographical number its area's zone, and the country's zones when its area has no entry", () => {
    expect(zones("+12124567890")).toEqual({ line_type: "fixed_line_or_mobile", zones: ["America/New_York"] });
    expect(zones("+13124567890").zones).toEqual(NANP.split("&"));
  });

  it("lists no zone of the country for a toll-free number: it is in none of them more than another", () => {
    expect(zones("+18002345678")).toEqual({ line_type: "toll_free", zones: null });
  });

  it("keeps a country's single zone for any number", () => {
    expect(zones("+41800123456")).toEqual({ line_type: "toll_free", zones: ["Europe/Zurich"] });
  });
});

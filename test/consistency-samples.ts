import countryCsv from "../datasets/ip/ip-country.sample.csv?raw";
import { installAddressData } from "./address-samples";
import { installSamples } from "./entity-samples";
import { installIpDataset, installIpSamples, listSample, sampleRows } from "./ip-samples";
import { installPhoneSamples, ukMobile } from "./phone-samples";

/** A real row of the same source as the IP sample (@ip-location-db, BT's 81.128.0.0/11): the sample has no UK range. */
const UK_RANGE = "81.128.0.0,81.159.255.255,GB";

/** The IP country sample with the UK range in its place (rows are read in address order). */
function countryCsvWithUk(): string {
  const lines = countryCsv.split("\n").filter(Boolean);
  const at = lines.findIndex((line) => Number(line.split(".")[0]) > 81 || line.includes(":"));
  return [...lines.slice(0, at), UK_RANGE, ...lines.slice(at)].join("\n");
}

export const IP_COUNTRY_VERSION = "2026-06-17-sampleuk";

export const TOR_FULL_VERSION = "2026-11-22-full";

/**
 * Everything the consistency tests read: the phone, address, register and IP samples (with the UK range), and the Tor
 * sample standing in for the Tor Project's whole list (coverage `full`), as production has it: an address off the list
 * is then not anonymous, where a sample list could only say "unknown".
 */
export async function installConsistencySamples() {
  await Promise.all([installPhoneSamples(), installAddressData(), installSamples(), installIpSamples()]);
  await installIpDataset("ip-country", sampleRows("ip-country", countryCsvWithUk()), IP_COUNTRY_VERSION);
  await installIpDataset("ip-tor-exits", listSample("ip-tor-exits").rows, TOR_FULL_VERSION, { kind: "full" });
}

/** Random digits for distinct addresses per call. */
const octet = () => Math.floor(Math.random() * 256);

/** An address in the UK range (BT); a Hetzner address in Germany (a hosting network); a Tor exit in the sample. */
export const ukIp = () => `81.130.${octet()}.${octet()}`;
export const hostingIpAbroad = () => `5.9.${octet()}.${octet()}`;
export const TOR_EXIT = "185.220.101.1";

export const LONDON = { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA", country: "GB" };
/** SAMPLE WIDGETS LIMITED in the Companies House sample. */
export const UK_COMPANY = { identifier: "09900001", type: "company_number" as const, country: "GB" };

/** A UK company with a .co.uk domain, a UK mobile, a London address and (given) an IP. */
export const ukCompany = (ip?: string) => ({
  email: "jane@samplewidgets.co.uk",
  phone: ukMobile(),
  address: LONDON,
  entity: UK_COMPANY,
  ...(ip ? { ip } : {}),
});

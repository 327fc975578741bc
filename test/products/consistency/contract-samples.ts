import { installAddressData } from "../../address-samples";
import { rand, type ContractSamples, type Samples } from "../../contract/samples";
import { installIpSamples, privateIp } from "../../ip-samples";
import { installPhoneSamples, ukMobile } from "../../phone-samples";
import { contract as phone } from "../phone/contract-samples";

/**
 * A UK mobile with a London address agrees (1 credit); with a private IP nothing is decided (free); two malformed
 * signals are answered locally; the phone and IP test values disagree on country (docs/consistency.md, "Test values").
 */
const samples: Samples = {
  paid: (n) =>
    Array.from({ length: n }, () => ({
      phone: ukMobile(),
      address: { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA", country: "GB" },
    })),
  respell: (value) => {
    const set = value as { phone: string };
    return { ...set, phone: phone.samples.respell(set.phone) };
  },
  free: () => ({ phone: ukMobile(), ip: privateIp() }),
  malformed: () => ({ phone: `bad-${rand()}`, ip: `not-an-ip-${rand()}` }),
  test: () => ({ phone: "+447700900000", ip: "192.0.2.1" }),
  gone: null,
  counters: { paid: "consistent", free: "undecided", malformed: "undecided", test: "mixed" },
  setup: async () => {
    await installPhoneSamples();
    await installIpSamples();
    await installAddressData();
  },
};

/** Consistency's contract samples (test/contract/): its values, and one valid request per single and batch route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /consistency": { body: { email: "deliverable@service.test", ip: "192.0.2.14" } },
  },
};

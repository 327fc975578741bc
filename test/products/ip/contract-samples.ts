import { rand, type ContractSamples, type Samples } from "../../contract/samples";
import { installIpSamples, placedIps, privateIp } from "../../ip-samples";

/** Placed public addresses cost a unit; private ones are answered free; 192.0.2.0/24 are the test values. */
const samples: Samples = {
  paid: placedIps,
  respell: (value) => `::ffff:${String(value)}`,
  free: privateIp,
  malformed: () => `not-an-ip-${rand()}`,
  test: () => "192.0.2.1",
  gone: null,
  counters: { paid: "low", free: "medium", malformed: "high", test: "low" },
  // Reported fraud shows in every later answer (not suppressed); `legit` adds nothing to the risk.
  feedback: { marking: { outcome: "fraud", kind: null }, harmless: { outcome: "legit", kind: null } },
  batch: { path: "/api/v1/ip/batch", field: "ips" },
  setup: installIpSamples,
};

/** IP's contract samples (test/contract/): its values, and one valid request per single and batch route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /ip": { body: { ip: "192.0.2.10" } },
    "GET /ip/me": { headers: { "CF-Connecting-IP": "192.0.2.11" } },
    "GET /ip/:ip": { path: "/ip/192.0.2.12" },
    "POST /ip/batch": { body: { ips: ["192.0.2.13", "not an ip"] } },
  },
};

import type { IpDatasetName } from "../datasets";
import { awsImporter } from "./aws";
import { azureImporter } from "./azure";
import { cloudflareImporter } from "./cloudflare";
import { digitalOceanImporter } from "./digitalocean";
import { fireholProxiesImporter } from "./firehol-proxies";
import { googleCloudImporter } from "./google-cloud";
import type { IpImporter } from "./importer";
import { oracleImporter } from "./oracle";
import { torImporter } from "./tor";
import { x4bnetVpnImporter } from "./x4bnet-vpn";

/**
 * The list importers, one per publisher (the range tables `ip-country`, `ip-asn` and `ip-city` are streamed by
 * scripts/import-ip.mjs instead: their files are hundreds of megabytes). A refresh registers each of these.
 */
export const LIST_IMPORTERS: IpImporter[] = [
  awsImporter,
  googleCloudImporter,
  azureImporter,
  oracleImporter,
  digitalOceanImporter,
  cloudflareImporter,
  x4bnetVpnImporter,
  fireholProxiesImporter,
  torImporter,
];

export const importerOf = (dataset: IpDatasetName): IpImporter | undefined =>
  LIST_IMPORTERS.find((i) => i.dataset === dataset);

export type { IpImporter } from "./importer";

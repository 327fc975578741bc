import { cidrRows, every, isObject, LIST_SANITY, readJson, source, strings, WHOLE, type IpImporter } from "./importer";

/**
 * Azure Service Tags (`ServiceTags_Public_YYYYMMDD.json`): `{changeNumber, cloud: "Public", values: [{name, id,
 * properties: {changeNumber, region, platform, systemService, addressPrefixes: [...]}}]}`. The `AzureCloud` tag holds
 * every public address of the Azure cloud; the other tags are subsets of it, so only it is read when present.
 * The file states no date, so the version is the fetch day tagged with the file's change number.
 */
export const azureImporter: IpImporter = {
  dataset: "hosting-azure",
  publisher: "Microsoft Azure",
  // Microsoft publishes the file under a new dated name each week, linked from an HTML page
  // (https://www.microsoft.com/en-us/download/details.aspx?id=56519): no stable URL to fetch, so the scheduled refresh
  // stays off until the operator sets REFRESH_URL_HOSTING_AZURE to a file's URL (or imports it by hand).
  sources: [source("REFRESH_URL_HOSTING_AZURE", "off")],
  format: WHOLE,
  formatName: "Azure Service Tags JSON (ServiceTags_Public)",
  cadence: every("week"),
  sanity: LIST_SANITY,
  license: "published by Microsoft for allow-listing; no licence terms stated",
  coverage: { kind: "full", note: "the AzureCloud service tag: every public address of the Azure public cloud" },
  fullFloor: { records: 1_000, basis: "the AzureCloud tag: several thousand prefixes, observed 2025" },
  sample: "azure-service-tags.sample.json",
  parse(text) {
    const file = readJson(text, "Azure Service Tags");
    if (!isObject(file) || !Array.isArray(file.values)) throw new Error("Azure Service Tags: no values array");
    const tags = file.values.filter(isObject);
    const whole = tags.filter((t) => t.name === "AzureCloud");
    const blocks = (whole.length ? whole : tags).flatMap((t) =>
      isObject(t.properties) ? strings(t.properties.addressPrefixes) : [],
    );
    return { ...cidrRows(blocks, this.publisher), version: null };
  },
};

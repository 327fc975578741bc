import manifest from "../../../datasets/phone/manifest.json";
import { whole, DELIVERY_FEEDBACK, SUPPRESSION_LIST } from "../../engines/sources";

/**
 * The phone datasets (datasets/phone/README.md). The numbering plan (libphonenumber-js) and the test numbers are
 * bundled with the Worker; their versions come from the committed manifest. The prefix tables live in D1
 * (`phone_prefixes`): an answer cites the version the `datasets` table says is installed.
 */
export const TABLE_DATASETS = ["phone-carriers", "phone-geocodes", "phone-timezones", "phone-disposable"] as const;
export type TableDataset = (typeof TABLE_DATASETS)[number];

export const isTableDataset = (name: string): name is TableDataset =>
  (TABLE_DATASETS as readonly string[]).includes(name);

const bundled = (name: string) => {
  const entry = manifest.datasets.find((d) => d.name === name);
  if (!entry) throw new Error(`datasets/phone/manifest.json lacks ${name}: run npm run datasets:phone`);
  // Built from the whole of libphonenumber's metadata and the curated test numbers (datasets/phone/README.md).
  return { name, version: entry.version, records: entry.records, coverage: { kind: "full" as const } };
};

export const NUMBERING_PLAN = bundled("phone-numbering-plan");
export const TEST_NUMBERS = bundled("phone-test-numbers");

/** Bundled with the Worker, listed by `GET /status/data` beside the email snapshots. */
export const BUNDLED_PHONE_DATASETS = [NUMBERING_PLAN, TEST_NUMBERS];

export const PHONE_DATASET_NAMES = [
  NUMBERING_PLAN.name,
  TEST_NUMBERS.name,
  ...TABLE_DATASETS,
  SUPPRESSION_LIST,
  DELIVERY_FEEDBACK,
];

export const planSource = whole(NUMBERING_PLAN.name, NUMBERING_PLAN.version);

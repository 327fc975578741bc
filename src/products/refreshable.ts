import type { RefreshableDataset } from "../engines/datasets/refreshable";
import { registeredProducts } from "./registry";

/** The datasets the scheduled refresh keeps current: every registered product's `refreshable`, handed to the engine. */
export const refreshableDatasets = (): RefreshableDataset[] => registeredProducts().flatMap((p) => p.refreshable ?? []);

export const refreshableNamed = (name: string) => refreshableDatasets().find((d) => d.name === name);

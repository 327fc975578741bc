// `npm run db:generate [-- --name <name>]`: drizzle-kit's migrations for each D1 database from its schema files, with
// the same arguments: `DB`'s (drizzle.config.ts, migrations/), then the address reference database's
// (drizzle.address.config.ts, migrations-address/). A database whose tables did not change gets nothing written.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./lib/local.mjs";

const kit = join(ROOT, "node_modules", ".bin", "drizzle-kit");
for (const config of ["drizzle.config.ts", "drizzle.address.config.ts"])
  execFileSync(kit, ["generate", "--config", config, ...process.argv.slice(2)], { cwd: ROOT, stdio: "inherit" });

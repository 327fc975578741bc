/**
 * A moment shown in the reader's own time zone: rendered in UTC (what the server knows, and what a page without script
 * keeps), then rewritten by `/dashboard/assets/local-time.js` with the browser's locale and zone.
 */
export const LocalTime = ({ at }: { at: number }) => {
  const iso = new Date(at).toISOString();
  return (
    <time datetime={iso} data-local="">
      {`${iso.slice(0, 16).replace("T", " ")} UTC`}
    </time>
  );
};

/**
 * The script every signed-in page loads (a file: the CSP allows no inline script). Components, not `dateStyle`:
 * `dateStyle` with `timeZoneName` throws.
 */
export const LOCAL_TIME_SCRIPT = `for (const el of document.querySelectorAll("time[data-local]")) {
  const at = new Date(el.getAttribute("datetime") || "");
  if (!Number.isNaN(at.getTime()))
    el.textContent = at.toLocaleString(undefined, {
      year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
    });
}
`;

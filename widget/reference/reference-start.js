// Starts the reference renderer (swagger-ui-dist's bundle, loaded just before this file) on the document the page
// names. The operations list only: no top bar (its URL box loads any document), no call to the public validator
// badge service (validatorUrl: null), nothing from another origin.
//
// Two plugins keep the first render fast (test/e2e/reference.test.ts prints the time to the rendered operations):
// the renderer reads the document as YAML (js-yaml on 0.5 MB of JSON) and resolves references with its OpenAPI 3.1
// resolver, which turns the whole document into its own element tree at each resolution; with both, 140 operations
// took 13-15 s to appear on a loaded 2-core machine, 2.9-4.5 s without. Our document is JSON and every `$ref` in it
// is local (`#/components/...`), so JSON.parse and a local dereference give the renderer the same values.
(() => {
  const pointer = (root, ref) =>
    ref
      .slice(2)
      .split("/")
      .reduce((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], root);

  // A subtree with its local references replaced by their targets (`$$ref` names the target, as the renderer's own
  // resolver does); a reference inside its own target stays a reference.
  const dereference = (root, value, refs) => {
    if (Array.isArray(value)) return value.map((item) => dereference(root, item, refs));
    if (!value || typeof value !== "object") return value;
    if (typeof value.$ref === "string" && value.$ref.startsWith("#/") && !refs.includes(value.$ref)) {
      const target = pointer(root, value.$ref);
      if (target !== undefined) {
        const { $ref, ...siblings } = value;
        return { ...dereference(root, target, [...refs, $ref]), ...dereference(root, siblings, refs), $$ref: $ref };
      }
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, dereference(root, item, refs)]));
  };

  const LocalReferences = () => ({
    fn: {
      resolveSubtree: async (spec, path) => ({
        spec: dereference(
          spec,
          path.reduce((node, key) => node?.[key], spec),
          [],
        ),
        errors: [],
      }),
    },
  });

  const JsonDocument = () => ({
    statePlugins: {
      spec: {
        wrapActions: {
          parseToJson: (original, system) => (text) => {
            try {
              return system.specActions.updateJsonSpec(JSON.parse(text ?? system.specSelectors.specStr()));
            } catch {
              return original(text);
            }
          },
        },
      },
    },
  });

  const root = document.getElementById("reference");
  window.SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: [LocalReferences, JsonDocument],
    layout: "BaseLayout",
    deepLinking: true,
    validatorUrl: null,
    // Tags listed closed, each opened by the reader: Swagger UI 5.35 stops rendering once about 140 operations are
    // open at once (the whole page fell back to the first three), and this document has more.
    docExpansion: "none",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    onComplete: () => document.querySelector(".reference-loading")?.remove(),
  });
})();

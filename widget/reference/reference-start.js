// Starts the reference renderer (swagger-ui-dist's bundle, loaded just before this file) on the document the page
// names. The operations list only: no top bar (its URL box loads any document), no call to the public validator
// badge service (validatorUrl: null), nothing from another origin.
(() => {
  const root = document.getElementById("reference");
  window.SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    onComplete: () => document.querySelector(".reference-loading")?.remove(),
  });
})();

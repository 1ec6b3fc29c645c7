// Starts Swagger UI on /docs from a file of its own: the page's Content-Security-Policy allows scripts
// from this server only, so no inline script. Everything comes from this origin; the online validator
// badge is off (it would send the schema elsewhere).
"use strict";

window.addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({
    url: "/docs/openapi-3.0.json", // /openapi.json is OpenAPI 3.1, which this Swagger UI does not read
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
});

// Starts Swagger UI from a file: NSwag's own index.html does this in an inline script, which the gateway's
// Content-Security-Policy (script-src 'self') refuses. The swagger-ui files beside this page are NSwag's.
window.ui = SwaggerUIBundle({
  url: 'v1/swagger.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'StandaloneLayout',
});

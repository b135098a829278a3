namespace ApiGateway.OpenApi;

/// <summary>The OpenAPI document, made by NSwag, at /swagger/v1/swagger.json, and Swagger UI at /swagger.</summary>
public static class SwaggerSetup
{
    public static IServiceCollection AddSwaggerDocs(this IServiceCollection services)
    {
        services.AddEndpointsApiExplorer();
        services.AddOpenApiDocument(settings =>
        {
            // wwwroot/swagger/swagger-start.js loads this document by its path, /swagger/v1/swagger.json.
            settings.DocumentName = "v1";
            settings.Title = "GrpcBestPractices gateway";
            settings.Version = "v1";
            settings.Description = "Each endpoint runs one gRPC client strategy against PerformanceService and reports how long it took. " +
                "Try count = 1000 on each and compare requestProcessingTime (milliseconds, sub-millisecond resolution) and connectionsUsed. " +
                "Every parameter is typed with its limits and default; a query parameter a route does not take is a 400 that names it and lists those it does. " +
                "[Open the chart page](/) to run every strategy side by side and watch it live.";
            // Each body's fields in its own schema, so a suite's can leave out those of a run it refuses.
            settings.SchemaSettings.FlattenInheritanceHierarchy = true;
            settings.SchemaSettings.SchemaProcessors.Add(new RequestShapeSchema());
            settings.SchemaSettings.SchemaProcessors.Add(new RunPlanSchema());
            settings.SchemaSettings.SchemaProcessors.Add(new WireNameSchema());
            settings.OperationProcessors.Add(new MinimalApiMetadataProcessor());
            // After the content types are right: it writes examples into the application/problem+json bodies.
            settings.OperationProcessors.Add(new RouteParametersProcessor());
            WorkSecurityProcessor.AddTo(settings);
        });
        return services;
    }

    public static WebApplication UseSwaggerDocs(this WebApplication app)
    {
        // NSwag names the requested host as the server; without it Swagger UI calls the origin it was loaded from,
        // and a forwarded Host header cannot point it anywhere else.
        // RunPlanSchema made the called parts' schemas only to copy their properties into RunPlan's: nothing refers to them.
        app.UseOpenApi(settings => settings.PostProcess = static (document, _) =>
        {
            document.Servers.Clear();
            document.Components.Schemas.Remove(RunPlanJson.CalledShapes.AfterWarmup.Name);
            document.Components.Schemas.Remove(RunPlanJson.CalledShapes.AfterSettings.Name);
        });
        // NSwag serves swagger-ui's files under /swagger. Its index.html starts the UI with an inline script, which the
        // gateway's policy refuses; wwwroot/swagger/index.html, served first by the static files, starts it from a file.
        app.UseSwaggerUi();
        return app;
    }
}

using Namotion.Reflection;
using NJsonSchema;
using NJsonSchema.Generation;
using System.Text.Json;

namespace ApiGateway.OpenApi;

/// <summary>
/// NJsonSchema reads <see cref="RunPlan"/>'s C# shape (the load settings and a called part), but its JSON is
/// <see cref="RunPlanJson"/>'s flat one, which answers, events and histories have always had: the document describes
/// that, the called part's fields among the settings.
/// </summary>
public sealed class RunPlanSchema : ISchemaProcessor
{
    public void Process(SchemaProcessorContext context)
    {
        if (context.ContextualType.Type != typeof(RunPlan))
        {
            return;
        }

        // The settings as NJsonSchema read them from RunPlan, with the called part's fields where RunPlanJson writes them.
        var (afterWarmup, afterSettings) = RunPlanJson.CalledShapes;
        var settings = context.Schema.Properties.ToList();
        context.Schema.Properties.Clear();
        foreach (var (name, property) in settings)
        {
            context.Schema.Properties[name] = property;
            if (name == JsonNamingPolicy.CamelCase.ConvertName(nameof(RunPlan.Warmup)))
            {
                Add(context, afterWarmup);
            }
        }

        Add(context, afterSettings);
    }

    private static void Add(SchemaProcessorContext context, Type part)
    {
        var schema = new JsonSchema();
        context.Generator.Generate(schema, part.ToContextualType(), context.Resolver);
        foreach (var (name, property) in schema.ActualProperties)
        {
            context.Schema.Properties[name] = property;
        }
    }
}

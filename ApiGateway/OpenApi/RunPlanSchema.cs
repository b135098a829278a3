using Namotion.Reflection;
using NJsonSchema;
using NJsonSchema.Generation;

namespace ApiGateway.OpenApi;

/// <summary>
/// NJsonSchema reads <see cref="RunPlan"/>'s C# shape (the load settings and a called part), but its JSON is
/// <see cref="RunPlanJson"/>'s flat one, which answers, events and histories have always had: the document describes that.
/// </summary>
public sealed class RunPlanSchema : ISchemaProcessor
{
    public void Process(SchemaProcessorContext context)
    {
        if (context.ContextualType.Type != typeof(RunPlan))
        {
            return;
        }

        var flat = new JsonSchema();
        context.Generator.Generate(flat, RunPlanJson.Shape.ToContextualType(), context.Resolver);
        context.Schema.Properties.Clear();
        foreach (var (name, property) in flat.ActualProperties)
        {
            context.Schema.Properties[name] = property;
        }
    }
}

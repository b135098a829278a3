using ApiGateway.Endpoints;
using NJsonSchema.Generation;

namespace ApiGateway.OpenApi;

/// <summary>
/// The bodies derive from <see cref="RunPlanInput"/>, so a new setting is documented with no line here; NJsonSchema reads
/// the types, not the JSON options that keep only each body's fields, so this leaves out the fields a suite, a comparison
/// or an experiment refuses: the document lists exactly what <see cref="RunRequestReader.Shapes"/> bind.
/// </summary>
public sealed class RequestShapeSchema : ISchemaProcessor
{
    public void Process(SchemaProcessorContext context)
    {
        if (!RunRequestReader.Shapes.TryGetValue(context.ContextualType.Type, out var shape))
        {
            return;
        }

        foreach (var refused in context.Schema.Properties.Keys.Except(shape.Fields).ToList())
        {
            context.Schema.Properties.Remove(refused);
        }
    }
}

using ApiGateway.Endpoints;
using NJsonSchema.Generation;

namespace ApiGateway.OpenApi;

/// <summary>
/// A suite's and a comparison's bodies are a run's plan (<see cref="SuiteRequestBody"/> and <see cref="ComparisonRequestBody"/>
/// derive from it, so a new setting is documented with no line here) less the fields each refuses: the document lists
/// exactly what <see cref="RunRequestReader.Suite"/> and <see cref="RunRequestReader.Comparison"/> read.
/// </summary>
public sealed class RequestShapeSchema : ISchemaProcessor
{
    private static readonly Dictionary<Type, RequestShape> Shapes = new()
    {
        [typeof(SuiteRequestBody)] = RunRequestReader.Suite, [typeof(ComparisonRequestBody)] = RunRequestReader.Comparison,
    };

    public void Process(SchemaProcessorContext context)
    {
        if (!Shapes.TryGetValue(context.ContextualType.Type, out var shape))
        {
            return;
        }

        foreach (var refused in context.Schema.Properties.Keys.Except(shape.Fields).ToList())
        {
            context.Schema.Properties.Remove(refused);
        }
    }
}

using ApiGateway.Endpoints;
using NJsonSchema.Generation;

namespace ApiGateway.OpenApi;

/// <summary>
/// A suite's body is a run's plan (<see cref="SuiteRequestBody"/> derives from it, so a new setting is documented with no
/// line here) less the fields a suite refuses: the document lists exactly what <see cref="RunRequestReader.Suite"/> reads.
/// </summary>
public sealed class RequestShapeSchema : ISchemaProcessor
{
    public void Process(SchemaProcessorContext context)
    {
        if (context.ContextualType.Type != typeof(SuiteRequestBody))
        {
            return;
        }

        foreach (var refused in context.Schema.Properties.Keys.Except(RunRequestReader.Suite.Fields).ToList())
        {
            context.Schema.Properties.Remove(refused);
        }
    }
}

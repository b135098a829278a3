using LoadEngine.Protocols;
using NJsonSchema;
using NJsonSchema.Generation;

namespace ApiGateway.OpenApi;

/// <summary>
/// A setting typed <see cref="WireName{TEnum}"/> is read and written as one of its enum's wire names; NJsonSchema would
/// describe the struct it is in C#, an object holding a number, so this describes the string it is on the wire.
/// </summary>
public sealed class WireNameSchema : ISchemaProcessor
{
    public void Process(SchemaProcessorContext context)
    {
        if (WireName.EnumOf(context.ContextualType.Type) is not { } named)
        {
            return;
        }

        context.Schema.Type = JsonObjectType.String;
        context.Schema.Properties.Clear();
        context.Schema.Enumeration.Clear();
        WireName.Names(named).ToList().ForEach(context.Schema.Enumeration.Add);
    }
}

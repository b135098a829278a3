using Grpc.Core;
using LoadEngine.Runs;
using LoadEngine.Targets.Described;

namespace LoadEngine.Lessons;

/// <summary>
/// The user's method a lesson runs on instead of the built-in service's: a configured target (by name, null for the
/// built-in service reached through its descriptors), its address, the target as its host described it, a unary
/// method and its data, and for the streaming lesson the bidirectional method of the same types (named, or found).
/// <see cref="BuiltIn"/> is the host's word that the target is the built-in service, whose answers say which connection
/// carried each call; any other service's are not trusted to, even when its contract has the same field.
/// </summary>
public sealed record LessonCall(string? Target, Uri Address, DescribedTarget Described, string Call, string? Data, string? StreamCall = null, bool BuiltIn = false)
{
    /// <summary>The target in a sentence: its name, or its address when it has none.</summary>
    public string Name => Target ?? Address.ToString().TrimEnd('/');

    public bool Tls => Address.Scheme == Uri.UriSchemeHttps;
}

/// <summary>
/// A lesson on the user's method: whether it applies (one sentence when not), each arm's plan on the method, and the
/// arms that stay on the built-in service and why. The probe's call is made here too, so the keep-alive lesson calls
/// the described method as every run does.
/// </summary>
public static class LessonOnTarget
{
    /// <summary>The lesson's unary method, and for the streaming lesson the bidirectional one, found in <paramref name="call"/>'s descriptors.</summary>
    public sealed record Methods(DescribedMethod Unary, DescribedMethod? Stream);

    /// <summary>Why <paramref name="lesson"/> cannot run on <paramref name="call"/>'s method, as one sentence; null (with the methods) when it can.</summary>
    public static string? WhyNot(LessonDefinition lesson, LessonCall call, out Methods methods)
    {
        methods = null!;
        if (lesson.NotOnTargets is { } builtInOnly)
        {
            return builtInOnly;
        }

        try
        {
            var unary = call.Described.Find(call.Call);
            if (unary.Kind != MethodType.Unary)
            {
                return $"The lessons compare ways of making unary calls, and {unary.Call} is {unary.KindName}: name a unary method of {call.Name}.";
            }

            CallData.Parse(unary, call.Data);
            DescribedMethod? stream = null;
            if (lesson.Arms.Any(arm => arm.Run?.Strategy is { } strategy && Strategies.StrategyList.Find(strategy)?.Shape == Strategies.CallShape.OneStream))
            {
                if (StreamOf(call.Described, unary, call, out stream) is { } noStream)
                {
                    return noStream;
                }

                CallData.Parse(stream!, call.Data);
            }

            methods = new Methods(unary, stream);
            return null;
        }
        catch (TargetDescriptionException problem)
        {
            return problem.Message;
        }
    }

    /// <summary>An arm of a lesson that applies, on the method: its plan input, or why the arm stays on the built-in service.</summary>
    public static RunPlanInput? Input(LessonArm arm, LessonCall call, Methods methods, out string? unavailable)
    {
        unavailable = null;
        if (arm.Contender is not null && arm.Run is not null)
        {
            unavailable = $"This arm loads the built-in service's {arm.Run.Workload} workload on its own TLS listener; on {call.Name} the strategy arms call {methods.Unary.Call}" +
                (call.Tls ? ", over TLS already." : ".");
            return null;
        }

        if (arm.Run is null)
        {
            // A probed arm: the probe calls the method at the target's own address, so only the arms of its transport measure.
            if (!arm.AnyTransport && (arm.Contender is not null) != call.Tls)
            {
                unavailable = $"{call.Name} is reached over {(call.Tls ? "TLS" : "h2c")} ({call.Address.ToString().TrimEnd('/')}), so the probe's channels are the {(call.Tls ? "TLS" : "h2c")} arms'.";
            }

            return null;
        }

        var oneStream = Strategies.StrategyList.Find(arm.Run.Strategy)?.Shape == Strategies.CallShape.OneStream;
        // A described method's request comes from the data: no server delay, no payload size.
        return arm.Run with { Target = call.Target, Call = oneStream ? methods.Stream!.Call : methods.Unary.Call, Data = call.Data, DelayMs = null, PayloadBytes = null };
    }

    /// <summary>The bidirectional method the streaming lesson carries the same requests on: the one named, or the first of the same types (the unary method's own service first).</summary>
    private static string? StreamOf(DescribedTarget target, DescribedMethod unary, LessonCall call, out DescribedMethod? stream)
    {
        bool SameTypes(DescribedMethod method) =>
            method.Descriptor.InputType.FullName == unary.Descriptor.InputType.FullName && method.Descriptor.OutputType.FullName == unary.Descriptor.OutputType.FullName;

        var types = $"{unary.Descriptor.InputType.FullName} and answering {unary.Descriptor.OutputType.FullName}";
        if (call.StreamCall is { } named)
        {
            stream = target.Find(named);
            return stream.Kind == MethodType.DuplexStreaming && SameTypes(stream)
                ? null
                : $"streamCall {stream.Call} must be a bidirectional method taking {types}, as {unary.Call} does; it is {stream.KindName}, taking {stream.Descriptor.InputType.FullName} and answering {stream.Descriptor.OutputType.FullName}.";
        }

        stream = target.Methods
            .Where(method => method.Kind == MethodType.DuplexStreaming && SameTypes(method))
            .OrderBy(method => method.Descriptor.Service == unary.Descriptor.Service ? 0 : 1)
            .FirstOrDefault();
        return stream is not null
            ? null
            : $"The streaming lesson carries {unary.Call}'s requests on one bidirectional stream, and {call.Name} has no bidirectional method taking {types}; name one as streamCall if it has another.";
    }
}

using System.Globalization;

namespace LoadEngine.Targets.Described;

/// <summary>What one call's template sees (ghz's CallData): its number, its worker, its method, and when it was made.</summary>
public readonly record struct CallValues(long RequestNumber, string WorkerId, DescribedMethod Method);

/// <summary>
/// ghz's per-call templates inside the data's strings: {{.RequestNumber}}, {{.WorkerID}}, {{.UUID}}, the timestamps, the
/// method's names, {{newUUID}}, {{randomString N}} and {{randomInt MIN MAX}}, with ghz's semantics (runner/calldata.go):
/// .UUID is one per call, newUUID a new one each time; randomString N of N ≤ 0 has a random length from 2 to 16;
/// randomInt gives MIN ≤ n &lt; MAX, a negative MIN counting as 0 and a MAX ≤ 0 as 1. A template is bounded before it
/// renders: the most characters it can render, its literal text and each action's longest, is at most what data may hold.
/// </summary>
public sealed class CallTemplate
{
    private const string Charset = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    public const string Known = "{{.RequestNumber}}, {{.WorkerID}}, {{.UUID}}, {{.Timestamp}}, {{.TimestampUnix}}, {{.TimestampUnixMilli}}, " +
        "{{.TimestampUnixNano}}, {{.FullyQualifiedName}}, {{.MethodName}}, {{.ServiceName}}, {{.InputName}}, {{.OutputName}}, " +
        "{{.IsClientStreaming}}, {{.IsServerStreaming}}, {{newUUID}}, {{randomString N}}, {{randomInt MIN MAX}}";

    /// <summary>The most characters a rendered message may hold: as many as data may (<see cref="Runs.InputBounds.MaxDataLength"/>).</summary>
    public const int MaxRendered = Runs.InputBounds.MaxDataLength;

    // The longest each action renders: a long in digits with its sign, a UUID, .Timestamp's "yyyy-MM-ddTHH:mm:ss+00:00",
    // the engine's WorkerID "g<shard>c0" (DescribedMethodTarget.WorkerOf, an int shard), randomInt's int, and
    // randomString N ≤ 0's 16.
    private const int LongDigits = 20;
    private const int UuidLength = 36;
    private const int TimestampLength = 25;
    private const int WorkerIdLength = 14;
    private const int IntDigits = 11;
    private const int RandomLengthMax = 16;

    private readonly IReadOnlyList<Part> _parts;

    private CallTemplate(IReadOnlyList<Part> parts)
    {
        _parts = parts;
        MaxLength = parts.Sum(part => part.MaxLength);
    }

    /// <summary>The most characters one rendering can hold.</summary>
    public long MaxLength { get; }

    /// <summary>True when <paramref name="text"/> has a template action at all.</summary>
    public static bool HasAction(string text) => text.Contains("{{", StringComparison.Ordinal);

    /// <summary>
    /// The template in <paramref name="text"/> for calls of <paramref name="method"/>; an action it does not know, one left
    /// open, or a template that can render more than <see cref="MaxRendered"/> characters is a sentence, before anything renders.
    /// </summary>
    public static CallTemplate Parse(string text, DescribedMethod method)
    {
        var parts = new List<Part>();
        var at = 0;
        while (at < text.Length)
        {
            var open = text.IndexOf("{{", at, StringComparison.Ordinal);
            if (open < 0)
            {
                parts.Add(Literal(text[at..]));
                break;
            }

            var close = text.IndexOf("}}", open + 2, StringComparison.Ordinal);
            if (close < 0)
            {
                throw new TargetDescriptionException($"data has a template that is never closed: {Excerpt(text[open..])} needs its }}}}.");
            }

            if (open > at)
            {
                parts.Add(Literal(text[at..open]));
            }

            var action = Action(text[(open + 2)..close].Trim().Trim('-').Trim(), method);
            if (action.MaxLength > MaxRendered)
            {
                throw new TargetDescriptionException(
                    $"data's template {Excerpt(text[open..(close + 2)])} renders up to {Count(action.MaxLength)} characters; a rendered message may hold at most {Count(MaxRendered)}, as data may.");
            }

            parts.Add(action);
            at = close + 2;
        }

        var template = new CallTemplate(parts);
        return template.MaxLength <= MaxRendered ? template : throw new TargetDescriptionException(
            $"data's templates render a message of up to {Count(template.MaxLength)} characters; a rendered message may hold at most {Count(MaxRendered)}, as data may.");
    }

    public string Render(CallValues values)
    {
        var call = new Call(values);
        return _parts.Count == 1 ? _parts[0].Render(call) : string.Concat(_parts.Select(part => part.Render(call)));
    }

    /// <summary>A sentence count: 1,000,000,000.</summary>
    public static string Count(long count) => count.ToString("#,0", CultureInfo.InvariantCulture);

    private static Part Literal(string text) => new(_ => text, text.Length);

    private static Part Action(string action, DescribedMethod method)
    {
        var words = action.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        var descriptor = method.Descriptor;
        return words switch
        {
            [".RequestNumber"] => new(call => Whole(call.Values.RequestNumber), LongDigits),
            [".WorkerID"] => new(call => call.Values.WorkerId, WorkerIdLength),
            [".UUID"] => new(call => call.Uuid, UuidLength),
            [".Timestamp"] => new(call => call.Now.ToString("yyyy-MM-dd'T'HH:mm:ssK", CultureInfo.InvariantCulture), TimestampLength),
            [".TimestampUnix"] => new(call => Whole(call.Now.ToUnixTimeSeconds()), LongDigits),
            [".TimestampUnixMilli"] => new(call => Whole(call.Now.ToUnixTimeMilliseconds()), LongDigits),
            [".TimestampUnixNano"] => new(call => Whole((call.Now.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) * 100), LongDigits),
            [".FullyQualifiedName"] => Literal(descriptor.FullName),
            [".MethodName"] => Literal(descriptor.Name),
            [".ServiceName"] => Literal(descriptor.Service.Name),
            [".InputName"] => Literal(descriptor.InputType.Name),
            [".OutputName"] => Literal(descriptor.OutputType.Name),
            [".IsClientStreaming"] => Literal(descriptor.IsClientStreaming ? "true" : "false"),
            [".IsServerStreaming"] => Literal(descriptor.IsServerStreaming ? "true" : "false"),
            ["newUUID"] => new(_ => Guid.NewGuid().ToString(), UuidLength),
            ["randomString", var length] when int.TryParse(length, CultureInfo.InvariantCulture, out var n) => new(_ => RandomString(n), n <= 0 ? RandomLengthMax : n),
            ["randomInt", var low, var high] when int.TryParse(low, CultureInfo.InvariantCulture, out var min) && int.TryParse(high, CultureInfo.InvariantCulture, out var max) =>
                new(_ => Whole(RandomInt(min, max)), IntDigits),
            _ => throw new TargetDescriptionException($"data's template {{{{{action}}}}} is not one this tool knows; it knows {Known}."),
        };
    }

    public static string RandomString(int length) =>
        new(Random.Shared.GetItems<char>(Charset, length <= 0 ? Random.Shared.Next(2, 17) : length));

    public static int RandomInt(int min, int max)
    {
        min = Math.Max(min, 0);
        max = max <= 0 ? 1 : max;
        return min >= max ? min : Random.Shared.Next(min, max);
    }

    private static string Whole(long value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>Target text quoted in a sentence: its first <paramref name="max"/> characters, and "…" when it was longer.</summary>
    internal static string Excerpt(string text, int max = 40) => text.Length <= max ? text : text[..max] + "…";

    /// <summary>One piece of the template: literal text or an action, and the most characters it renders.</summary>
    private readonly record struct Part(Func<Call, string> Render, long MaxLength);

    /// <summary>One rendering: the call's values, and its UUID and clock, made once however often the template uses them.</summary>
    private sealed class Call(CallValues values)
    {
        private string? _uuid;
        private DateTimeOffset? _now;

        public CallValues Values => values;

        public string Uuid => _uuid ??= Guid.NewGuid().ToString();

        public DateTimeOffset Now => _now ??= DateTimeOffset.UtcNow;
    }
}

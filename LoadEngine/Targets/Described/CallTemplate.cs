using System.Globalization;
using System.Text;

namespace LoadEngine.Targets.Described;

/// <summary>What one call's template sees (ghz's CallData): its number, its worker, its method, and when it was made.</summary>
public readonly record struct CallValues(long RequestNumber, string WorkerId, DescribedMethod Method);

/// <summary>
/// ghz's per-call templates inside the data's strings: {{.RequestNumber}}, {{.WorkerID}}, {{.UUID}}, the timestamps, the
/// method's names, {{newUUID}}, {{randomString N}} and {{randomInt MIN MAX}}, with ghz's semantics (runner/calldata.go):
/// .UUID is one per call, newUUID a new one each time; randomString N of N ≤ 0 has a random length from 2 to 16;
/// randomInt gives MIN ≤ n &lt; MAX, a negative MIN counting as 0 and a MAX ≤ 0 as 1.
/// </summary>
public sealed class CallTemplate
{
    private const string Charset = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    public const string Known = "{{.RequestNumber}}, {{.WorkerID}}, {{.UUID}}, {{.Timestamp}}, {{.TimestampUnix}}, {{.TimestampUnixMilli}}, " +
        "{{.TimestampUnixNano}}, {{.FullyQualifiedName}}, {{.MethodName}}, {{.ServiceName}}, {{.InputName}}, {{.OutputName}}, " +
        "{{.IsClientStreaming}}, {{.IsServerStreaming}}, {{newUUID}}, {{randomString N}}, {{randomInt MIN MAX}}";

    private readonly IReadOnlyList<Func<Call, string>> _parts;

    private CallTemplate(IReadOnlyList<Func<Call, string>> parts) => _parts = parts;

    /// <summary>True when <paramref name="text"/> has a template action at all.</summary>
    public static bool HasAction(string text) => text.Contains("{{", StringComparison.Ordinal);

    /// <summary>The template in <paramref name="text"/>; an action it does not know, or one left open, is a sentence.</summary>
    public static CallTemplate Parse(string text)
    {
        var parts = new List<Func<Call, string>>();
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

            parts.Add(Action(text[(open + 2)..close].Trim().Trim('-').Trim()));
            at = close + 2;
        }

        return new CallTemplate(parts);
    }

    public string Render(CallValues values)
    {
        var call = new Call(values);
        if (_parts.Count == 1)
        {
            return _parts[0](call);
        }

        var text = new StringBuilder();
        foreach (var part in _parts)
        {
            text.Append(part(call));
        }

        return text.ToString();
    }

    private static Func<Call, string> Literal(string text) => _ => text;

    private static Func<Call, string> Action(string action)
    {
        var words = action.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return words switch
        {
            [".RequestNumber"] => call => Whole(call.Values.RequestNumber),
            [".WorkerID"] => call => call.Values.WorkerId,
            [".UUID"] => call => call.Uuid,
            [".Timestamp"] => call => call.Now.ToString("yyyy-MM-dd'T'HH:mm:ssK", CultureInfo.InvariantCulture),
            [".TimestampUnix"] => call => Whole(call.Now.ToUnixTimeSeconds()),
            [".TimestampUnixMilli"] => call => Whole(call.Now.ToUnixTimeMilliseconds()),
            [".TimestampUnixNano"] => call => Whole((call.Now.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) * 100),
            [".FullyQualifiedName"] => call => call.Values.Method.Descriptor.FullName,
            [".MethodName"] => call => call.Values.Method.Descriptor.Name,
            [".ServiceName"] => call => call.Values.Method.Descriptor.Service.Name,
            [".InputName"] => call => call.Values.Method.Descriptor.InputType.Name,
            [".OutputName"] => call => call.Values.Method.Descriptor.OutputType.Name,
            [".IsClientStreaming"] => call => call.Values.Method.Descriptor.IsClientStreaming ? "true" : "false",
            [".IsServerStreaming"] => call => call.Values.Method.Descriptor.IsServerStreaming ? "true" : "false",
            ["newUUID"] => _ => Guid.NewGuid().ToString(),
            ["randomString", var length] when int.TryParse(length, CultureInfo.InvariantCulture, out var n) => _ => RandomString(n),
            ["randomInt", var low, var high] when int.TryParse(low, CultureInfo.InvariantCulture, out var min) && int.TryParse(high, CultureInfo.InvariantCulture, out var max) =>
                _ => Whole(RandomInt(min, max)),
            _ => throw new TargetDescriptionException($"data's template {{{{{action}}}}} is not one this tool knows; it knows {Known}."),
        };
    }

    public static string RandomString(int length)
    {
        if (length <= 0)
        {
            length = Random.Shared.Next(2, 17);
        }

        return string.Create(length, 0, (chars, _) =>
        {
            for (var i = 0; i < chars.Length; i++)
            {
                chars[i] = Charset[Random.Shared.Next(Charset.Length)];
            }
        });
    }

    public static int RandomInt(int min, int max)
    {
        min = Math.Max(min, 0);
        max = max <= 0 ? 1 : max;
        return min >= max ? min : Random.Shared.Next(min, max);
    }

    private static string Whole(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static string Excerpt(string text) => text.Length <= 40 ? text : text[..40] + "…";

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

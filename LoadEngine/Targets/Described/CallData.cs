using System.Text.Json;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Runs;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A method's request data as ghz takes it: one JSON object, or an array whose objects a client or bidirectional stream
/// sends in order (and unary and server-streaming calls take in turn by request number), in the proto3 JSON mapping.
/// Data without a template is encoded once and reused; templated data is rendered and parsed per call.
/// </summary>
public sealed class CallData
{
    private static readonly JsonParser Parser = new(JsonParser.Settings.Default);

    private readonly DescribedMethod _method;
    private readonly IReadOnlyList<Entry> _entries;
    private readonly IMessage[]? _fixed;

    private CallData(DescribedMethod method, IReadOnlyList<Entry> entries)
    {
        _method = method;
        _entries = entries;
        _fixed = entries.All(entry => entry.Fixed is not null) ? [.. entries.Select(entry => entry.Fixed!)] : null;
    }

    /// <summary>
    /// The data <paramref name="json"/> gives <paramref name="method"/> (an empty request when there is none), checked now
    /// by rendering its templates with sample values: JSON that does not fit names the field and the type it must be.
    /// </summary>
    public static CallData Parse(DescribedMethod method, string? json) => For(method, DataMessages.Of(string.IsNullOrWhiteSpace(json) ? null : json));

    /// <summary>
    /// A plan's data, split once already (<see cref="MethodCall.Messages"/>), for <paramref name="method"/>: parsed once, as
    /// a plan is checked, and what the check made is what the run's calls take.
    /// </summary>
    public static CallData For(DescribedMethod method, DataMessages messages) =>
        messages.Parsed is { } parsed && parsed._method == method ? parsed : messages.Parsed = Create(method, messages);

    private static CallData Create(DescribedMethod method, DataMessages messages)
    {
        var type = method.Descriptor.InputType;
        if ((messages.Refusal ?? messages.Unfit) is { } problem)
        {
            throw new TargetDescriptionException(problem);
        }

        if (messages.Texts.Count == 0)
        {
            return new CallData(method, [new Entry(type, type.Parser.ParseFrom(ByteString.Empty), null, 0)]);
        }

        var entries = messages.Texts.Select(text => Entry.Of(method, text)).ToList();
        // A stream's call renders every message: all of them together are bounded as data is.
        var rendered = entries.Sum(entry => entry.MaxLength);
        if (entries.Count > 1 && rendered > CallTemplate.MaxRendered)
        {
            throw new TargetDescriptionException(
                $"data's templates render its {entries.Count} messages to up to {CallTemplate.Count(rendered)} characters in all; rendered data may hold at most {CallTemplate.Count(CallTemplate.MaxRendered)}, as data may.");
        }

        foreach (var entry in entries)
        {
            entry.Render(new CallValues(0, SampleWorker, method));
        }

        return new CallData(method, entries);
    }

    /// <summary>The WorkerID a template is checked with.</summary>
    public const string SampleWorker = "g0c0";

    /// <summary>The request of call <paramref name="number"/>: the data's messages taken in turn.</summary>
    public IMessage Request(long number, string workerId) =>
        _fixed is { } messages ? messages[(int)(number % messages.Length)] : Rendered(_entries[(int)(number % _entries.Count)], number, workerId);

    /// <summary>The messages a client or bidirectional stream sends as call <paramref name="number"/>: all of them, in order.</summary>
    public IReadOnlyList<IMessage> Messages(long number, string workerId) =>
        _fixed ?? [.. _entries.Select(entry => Rendered(entry, number, workerId))];

    private IMessage Rendered(Entry entry, long number, string workerId)
    {
        try
        {
            return entry.Render(new CallValues(number, workerId, _method));
        }
        catch (TargetDescriptionException problem)
        {
            // A rendering that no longer fits (a random value, say) fails this call only.
            throw new CallFailedException(StatusCode.InvalidArgument, problem.Message, problem);
        }
    }

    private static IMessage Read(MessageDescriptor type, string json)
    {
        try
        {
            return Parser.Parse(json, type);
        }
        catch (Exception problem) when (problem is InvalidProtocolBufferException or FormatException or InvalidOperationException or ArgumentException)
        {
            throw new TargetDescriptionException(DataFit.Explain(type, json, problem), problem);
        }
    }

    /// <summary>One message of the data: encoded once, or a template rendered and parsed per call; its text is at most <see cref="MaxLength"/> characters.</summary>
    private sealed record Entry(MessageDescriptor Type, IMessage? Fixed, CallTemplate? Template, long MaxLength)
    {
        public static Entry Of(DescribedMethod method, string json)
        {
            var type = method.Descriptor.InputType;
            if (!CallTemplate.HasAction(json))
            {
                return new Entry(type, Read(type, json), null, json.Length);
            }

            var template = CallTemplate.Parse(json, method);
            return new Entry(type, null, template, template.MaxLength);
        }

        public IMessage Render(CallValues values) => Fixed ?? Read(Type, Template!.Render(values));
    }
}

/// <summary>
/// A call's data split once into its messages' JSON: the object, or each object of the array. Data that is not JSON, or
/// neither an object nor an array, is refused before the target is described (<see cref="Refusal"/>); an empty array,
/// items that are not objects, and templated data that is JSON only once rendered (but not an object) are refused once the
/// method is known (<see cref="Unfit"/>), when <see cref="CallData"/> renders the templates.
/// </summary>
public sealed record DataMessages(IReadOnlyList<string> Texts, string? Refusal = null, string? Unfit = null)
{
    /// <summary>The data as <see cref="CallData.For"/> last parsed it, for its method.</summary>
    internal CallData? Parsed { get; set; }

    public static DataMessages Of(string? data)
    {
        if (data is null)
        {
            return new([]);
        }

        var templated = CallTemplate.HasAction(data);
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(data);
        }
        catch (JsonException) when (templated && data.TrimStart().StartsWith('{'))
        {
            // A template outside a string ({"id": {{.RequestNumber}}}) is JSON only once rendered, as ghz renders an object first.
            return new([data]);
        }
        catch (JsonException problem)
        {
            var sentence = DataFit.NotJson("data is not JSON", problem);
            return templated ? new([], Unfit: sentence) : new([], Refusal: sentence);
        }

        using (document)
        {
            var root = document.RootElement;
            return root.ValueKind switch
            {
                JsonValueKind.Object => new([data]),
                JsonValueKind.Array when root.GetArrayLength() == 0 => new([], Unfit: "data is an empty array; give one object, or an array of at least one."),
                JsonValueKind.Array when root.EnumerateArray().Any(item => item.ValueKind != JsonValueKind.Object) =>
                    new([], Unfit: "data is an array whose items must each be a JSON object (one message each)."),
                JsonValueKind.Array => new([.. root.EnumerateArray().Select(item => item.GetRawText())]),
                _ when templated => new([], Unfit: $"data must be a JSON object, or an array of objects; it was {root.ValueKind.ToString().ToLowerInvariant()}."),
                _ => new([], Refusal: "data must be a JSON object, or an array of objects (a stream's messages)."),
            };
        }
    }
}

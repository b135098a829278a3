using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using LoadEngine.Clients;

namespace LoadEngine.Targets;

/// <summary>
/// Text that came from a target (a status detail, a first answer, an error it sent, a name it serves) made fit to store
/// and print, where it enters the engine: the metadata values the tool was given are masked, control characters are
/// escaped and the length is bounded (<see cref="Clean"/>). One per engine, made from its connection's metadata;
/// <see cref="Escape"/> needs no connection, for code that sees target text before any engine does (describing).
/// </summary>
public sealed class TargetText
{
    /// <summary>What stands where a metadata value was.</summary>
    public const string Masked = "***";

    /// <summary>
    /// A value (or a whitespace-separated part of one) shorter than this is not masked: "true", "gzip" or a tenant's "42"
    /// would blank every such word and digit in an answer, and so much text cannot hide a secret.
    /// </summary>
    public const int MinSecretLength = 8;

    /// <summary>The most characters of a status detail or an error a sentence keeps.</summary>
    public const int MaxLength = 1024;

    // The JSON forms a value takes inside a target's answer: Google.Protobuf's (the first answer), System.Text.Json's
    // default and a minimal one (what JSON.stringify and most servers write).
    private static readonly JsonFormatter Protobuf = new(JsonFormatter.Settings.Default);
    private static readonly JsonSerializerOptions Relaxed = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    private readonly string[] _secrets;

    // Longest first: a value that holds another is masked whole.
    private TargetText(IEnumerable<string> secrets) =>
        _secrets = [.. secrets.Distinct(StringComparer.Ordinal).OrderByDescending(secret => secret.Length)];

    /// <summary>No metadata: escaping and the bound only.</summary>
    public static TargetText None { get; } = new([]);

    /// <summary>The text of an engine whose calls carry <paramref name="connection"/>'s metadata.</summary>
    public static TargetText For(TargetConnection connection) => For(connection.Metadata);

    /// <summary>
    /// Masks each value, each of its whitespace-separated parts long enough to be a secret ("Bearer &lt;token&gt;"'s token),
    /// and the forms each takes inside JSON; a -bin key's value also as canonical base64 and as its bytes read as UTF-8.
    /// </summary>
    public static TargetText For(IEnumerable<KeyValuePair<string, string>> metadata)
    {
        var values = new List<string>();
        foreach (var (key, value) in metadata)
        {
            values.Add(value);
            if (key.EndsWith(Grpc.Core.Metadata.BinaryHeaderSuffix, StringComparison.OrdinalIgnoreCase) && Decoded(value) is { } bytes)
            {
                values.Add(Convert.ToBase64String(bytes));
                if (System.Text.Unicode.Utf8.IsValid(bytes))
                {
                    values.Add(Encoding.UTF8.GetString(bytes));
                }
            }
        }

        var secrets = values.SelectMany(value => (string[])[value, .. value.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries)])
            .Where(secret => secret.Length >= MinSecretLength)
            .SelectMany(InJson);
        return new TargetText(secrets);
    }

    /// <summary>
    /// Target text as it may be stored and printed: every form of every value replaced by <see cref="Masked"/>, escaped
    /// (<see cref="Escape"/>) and cut at <paramref name="maxLength"/> characters.
    /// </summary>
    public string Clean(string? text, int maxLength = MaxLength) =>
        Escape(_secrets.Aggregate(text ?? string.Empty, (masked, secret) => masked.Replace(secret, Masked, StringComparison.Ordinal)), maxLength);

    /// <summary>
    /// <paramref name="text"/> with what a terminal or a page would act on written as a visible JSON-style escape (\n, \t,
    /// \r, \u001b, \u202e): C0 and C1 controls, DEL, the Unicode line and paragraph separators, the bidirectional marks,
    /// embeddings, overrides and isolates, and halves of a surrogate pair standing alone; then cut at
    /// <paramref name="maxLength"/> characters (never inside an escape or a pair), saying so. Escaped JSON stays JSON.
    /// </summary>
    public static string Escape(string? text, int maxLength = MaxLength)
    {
        text ??= string.Empty;
        if (text.Length <= maxLength && !NeedsAnyEscape(text))
        {
            return text;
        }

        var escaped = new StringBuilder(Math.Min(text.Length, maxLength) + 40);
        for (var at = 0; at < text.Length; at++)
        {
            var piece = NeedsEscape(text, at) ? Escaped(text[at])
                : char.IsHighSurrogate(text[at]) ? text.Substring(at++, 2)
                : null;
            if (escaped.Length + (piece?.Length ?? 1) > maxLength)
            {
                return escaped.Append($"… (cut at {maxLength.ToString("#,0", CultureInfo.InvariantCulture)} characters)").ToString();
            }

            if (piece is null)
            {
                escaped.Append(text[at]);
            }
            else
            {
                escaped.Append(piece);
            }
        }

        return escaped.ToString();
    }

    // Called for every failed call's detail: most need nothing, and this allocates nothing to say so.
    private static bool NeedsAnyEscape(string text)
    {
        for (var at = 0; at < text.Length; at++)
        {
            if (NeedsEscape(text, at))
            {
                return true;
            }
        }

        return false;
    }

    private static bool NeedsEscape(string text, int at)
    {
        var letter = text[at];
        return letter switch
        {
            < ' ' or (>= '\u007f' and <= '\u009f') => true,
            '\u2028' or '\u2029' => true,
            // Bidirectional marks, embeddings, overrides and isolates: they reorder what follows them on the screen.
            '\u061c' or '\u200e' or '\u200f' or (>= '\u202a' and <= '\u202e') or (>= '\u2066' and <= '\u2069') => true,
            _ when char.IsHighSurrogate(letter) => at + 1 >= text.Length || !char.IsLowSurrogate(text[at + 1]),
            _ when char.IsLowSurrogate(letter) => at == 0 || !char.IsHighSurrogate(text[at - 1]),
            _ => false,
        };
    }

    private static string Escaped(char letter) => letter switch
    {
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        _ => $"\\u{(int)letter:x4}",
    };

    /// <summary>The value and the forms it takes as a JSON string's content.</summary>
    private static IEnumerable<string> InJson(string value) =>
    [
        value,
        Protobuf.Format(new StringValue { Value = value })[1..^1],
        JsonSerializer.Serialize(value)[1..^1],
        JsonSerializer.Serialize(value, Relaxed)[1..^1],
    ];

    private static byte[]? Decoded(string base64)
    {
        var bytes = new byte[base64.Length];
        return Convert.TryFromBase64String(base64.Trim(), bytes, out var written) ? bytes[..written] : null;
    }
}

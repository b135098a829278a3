using System.Globalization;
using System.Text.RegularExpressions;

namespace LoadTest;

/// <summary>
/// A length of time as ghz writes it (Go's time.ParseDuration: 10s, 1m30s, 500ms, 1.5h, 250us) or, as this CLI always
/// took it, a plain number of seconds.
/// </summary>
public static partial class GhzDuration
{
    /// <summary>How a duration may be written, for the sentences that refuse one.</summary>
    public const string Form = "a duration such as 10s, 1m30s or 500ms (units h, m, s, ms, us, ns), or a number of seconds";

    public static bool TryParse(string? text, out TimeSpan value)
    {
        value = TimeSpan.Zero;
        if (string.IsNullOrWhiteSpace(text))
        {
            return false;
        }

        text = text.Trim();
        if (double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var seconds))
        {
            value = TimeSpan.FromSeconds(seconds);
            return true;
        }

        var parts = Part().Matches(text);
        // Every character belongs to a number-and-unit part, as in Go: "10 s", "s" and "10x" are not durations.
        if (parts.Count == 0 || parts.Sum(part => part.Length) != text.Length)
        {
            return false;
        }

        var total = 0.0;
        foreach (Match part in parts)
        {
            total += double.Parse(part.Groups["number"].Value, CultureInfo.InvariantCulture) * part.Groups["unit"].Value switch
            {
                "h" => 3600,
                "m" => 60,
                "s" => 1,
                "ms" => 1e-3,
                "us" or "µs" => 1e-6,
                _ => 1e-9,
            };
        }

        value = TimeSpan.FromSeconds(total);
        return true;
    }

    [GeneratedRegex(@"(?<number>\d+(\.\d*)?|\.\d+)(?<unit>ns|us|µs|ms|h|m|s)")]
    private static partial Regex Part();
}

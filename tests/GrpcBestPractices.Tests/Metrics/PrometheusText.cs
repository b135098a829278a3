using System.Globalization;
using System.Text;

namespace GrpcBestPractices.Tests.Metrics;

/// <summary>One sample of a scrape: <c>name{label="value",...} value</c>.</summary>
public sealed record PrometheusSample(string Name, IReadOnlyDictionary<string, string> Labels, double Value);

/// <summary>Prometheus' text exposition format, read as far as the tests need: every sample line, comments skipped.</summary>
public static class PrometheusText
{
    public static IReadOnlyList<PrometheusSample> Parse(string text) =>
        [.. text.Split('\n').Select(line => line.Trim()).Where(line => line.Length > 0 && line[0] != '#').Select(ParseLine)];

    /// <summary>Scrapes <paramref name="metrics"/> until <paramref name="done"/> holds (bounded), and returns that scrape.</summary>
    public static async Task<IReadOnlyList<PrometheusSample>> ScrapeUntilAsync(this HttpClient http, Uri metrics, Func<IReadOnlyList<PrometheusSample>, bool> done)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
        while (true)
        {
            var samples = Parse(await http.GetStringAsync(metrics));
            if (done(samples))
            {
                return samples;
            }

            Assert.True(DateTime.UtcNow < deadline, "The scrape never showed what was waited for. The last one:\n" + string.Join("\n", samples));
            await Task.Delay(200);
        }
    }

    /// <summary>The samples named <paramref name="name"/> whose labels include every pair in <paramref name="labels"/>.</summary>
    public static IEnumerable<PrometheusSample> Named(this IEnumerable<PrometheusSample> samples, string name, params (string Key, string Value)[] labels) =>
        samples.Where(sample => sample.Name == name && labels.All(label => sample.Labels.TryGetValue(label.Key, out var value) && value == label.Value));

    /// <summary>The one sample named so, or null when there is none.</summary>
    public static double? Single(this IEnumerable<PrometheusSample> samples, string name, params (string Key, string Value)[] labels) =>
        samples.Named(name, labels).ToList() switch
        {
            [] => null,
            [var one] => one.Value,
            var many => throw new InvalidOperationException($"{many.Count} samples named {name} with those labels."),
        };

    private static PrometheusSample ParseLine(string line)
    {
        var nameEnd = line.IndexOfAny(['{', ' ']);
        var name = line[..nameEnd];
        var labels = new Dictionary<string, string>(StringComparer.Ordinal);
        var at = nameEnd;
        if (line[at] == '{')
        {
            at++;
            while (line[at] != '}')
            {
                var equals = line.IndexOf('=', at);
                var key = line[at..equals];
                var (value, next) = QuotedValue(line, equals + 1);
                labels[key] = value;
                at = line[next] == ',' ? next + 1 : next;
            }

            at++;
        }

        var number = line[at..].Trim().Split(' ')[0];
        return new PrometheusSample(name, labels, number switch
        {
            "+Inf" => double.PositiveInfinity,
            "-Inf" => double.NegativeInfinity,
            _ => double.Parse(number, NumberStyles.Float, CultureInfo.InvariantCulture),
        });
    }

    // A label value: in double quotes, with \\, \" and \n escaped.
    private static (string Value, int Next) QuotedValue(string line, int at)
    {
        var value = new StringBuilder();
        for (at++; line[at] != '"'; at++)
        {
            value.Append(line[at] == '\\' ? line[++at] switch { 'n' => '\n', var escaped => escaped } : line[at]);
        }

        return (value.ToString(), at + 1);
    }
}

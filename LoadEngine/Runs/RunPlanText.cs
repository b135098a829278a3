using System.Globalization;
using LoadEngine.Protocols;

namespace LoadEngine.Runs;

/// <summary>
/// A plan written as text, a query string's or the command line's values by their request names: each read once into its
/// type for <see cref="RunPlanInput"/>, or refused with a sentence naming the field, what it held and what is allowed.
/// The range of a number that reads is <see cref="RunPlanRules"/>' to check, on the typed value.
/// </summary>
public static class RunPlanText
{
    public static bool TryRead(IReadOnlyDictionary<string, string?> values, IReadOnlyList<string>? thresholds, PlanLimits limits, out RunPlanInput input, out string error)
    {
        input = null!;
        var fields = new Reader(values);
        input = new RunPlanInput(
            fields.Text("strategy"), fields.Whole("count", 1, limits.MaxCount), fields.Whole("concurrency", 1, limits.MaxConcurrency),
            fields.Whole("warmup", 0, limits.MaxWarmup), fields.Whole("delayMs", 0, RunPlanRules.MaxDelayMs), fields.Whole("payloadBytes", 1, RunPlanRules.MaxPayloadBytes),
            fields.Read<bool>("includeStatuses", text => bool.TryParse(text, out var include) ? include : null, "true or false"))
        {
            Load = fields.Read<LoadKind>("load", text => RunPlanRules.TryLoad(text, out var load) ? load : null, $"one of: {RunPlanRules.LoadNames}"),
            Rate = fields.Number("rate", text => RunPlanRules.RateRefused(text, RunPlanRules.TryLoad(values.GetValueOrDefault("load") ?? "", out var load) ? load : LoadKind.Open)),
            Duration = fields.Number("duration", text => RunPlanRules.SecondsRefused(text, limits.MaxRunSeconds)),
            Stages = fields.List<RampStage>("stages", PlanLimits.MaxStages, InputBounds.MaxStageLength, "\"10:5000,20:5000\"", Stage, RunPlanRules.NotAStage),
            Percentiles = fields.List<double>("percentiles", PlanLimits.MaxPercentiles, InputBounds.MaxValueLength, "\"50,90,99,99.9\"", Percentile, RunPlanRules.NotAPercentile),
            Thresholds = thresholds,
            Workload = fields.Text("workload"),
            Protocol = fields.Wire<ApiProtocol>("protocol"),
            Serializer = fields.Wire<PayloadSerializer>("serializer"),
            HttpVersion = fields.Wire<WireVersion>("httpVersion"),
            Security = fields.Wire<WireSecurity>("security"),
            FileBytes = fields.Read<long>("fileBytes", text => long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var bytes) ? bytes : (long?)null, WorkloadRules.FileBytesAllowed),
            Connection = fields.Wire<ConnectionUse>("connection", WorkloadParameters.Connection.Allowed),
            Clients = fields.Whole("clients", 1, WorkloadParameters.MaxClients),
            Variant = fields.Wire<BulkReadVariant>("variant", WorkloadParameters.Variant.Allowed),
            Users = fields.Whole("users", 1, int.MaxValue, $"a whole number from {WorkloadParameters.Users.Allowed}"),
        };
        error = fields.Error ?? string.Empty;
        return fields.Error is null;
    }

    private delegate bool Parse<T>(string text, out T value);

    private static bool Stage(string pair, out RampStage stage)
    {
        var parts = pair.Split(':', StringSplitOptions.TrimEntries);
        var duration = 0.0;
        var rate = 0.0;
        var ok = parts.Length == 2 && TryNumber(parts[0], out duration) && TryNumber(parts[1], out rate);
        stage = new RampStage(duration, rate);
        return ok;
    }

    private static bool Percentile(string item, out double value) => TryNumber(item.TrimStart('p', 'P'), out value);

    private static bool TryNumber(string text, out double value) => double.TryParse(text, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);

    /// <summary>Reads fields until the first that does not read, whose sentence is then <see cref="Error"/>.</summary>
    private sealed class Reader(IReadOnlyDictionary<string, string?> values)
    {
        public string? Error { get; private set; }

        private string? Given(string name, int maxLength = InputBounds.MaxValueLength)
        {
            var text = values.GetValueOrDefault(name);
            Error ??= InputBounds.TooLong(name, text, maxLength);
            return Error is null && !string.IsNullOrEmpty(text) ? text : null;
        }

        public string? Text(string name) => Given(name);

        public T? Read<T>(string name, Func<string, T?> parse, string allowed) where T : struct =>
            Refused(name, parse, text => $"{name} was '{text}'; it must be {allowed}.");

        public int? Whole(string name, int min, int max, string? allowed = null) =>
            Refused(name, text => int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var value) ? value : (int?)null,
                text => allowed is null ? RunPlanRules.WholeRefused(name, text, min, max) : $"{name} was '{text}'; it must be {allowed}.");

        public double? Number(string name, Func<string, string> refused) =>
            Refused(name, text => TryNumber(text, out var value) ? value : (double?)null, refused);

        public TEnum? Wire<TEnum>(string name, string? allowed = null) where TEnum : struct, Enum =>
            Read(name, text => WireNames<TEnum>.TryParse(text, out var value) ? value : (TEnum?)null, allowed ?? WireNames<TEnum>.Listed);

        private T? Refused<T>(string name, Func<string, T?> parse, Func<string, string> refused) where T : struct
        {
            if (Given(name) is not { } text)
            {
                return null;
            }

            var value = parse(text);
            Error ??= value is null ? refused(text) : null;
            return value;
        }

        /// <summary>A comma-separated list, bounded before its items are read; each item as <paramref name="parse"/> reads it.</summary>
        public IReadOnlyList<T>? List<T>(string name, int maxItems, int maxItemLength, string example, Parse<T> parse, Func<string, string, string> refused)
        {
            var text = values.GetValueOrDefault(name);
            if (Error is not null || string.IsNullOrWhiteSpace(text))
            {
                return null;
            }

            var items = text.Split(',', StringSplitOptions.TrimEntries);
            Error = InputBounds.Items(name, items.Length, maxItems, example)
                ?? items.Select((item, index) => InputBounds.TooLong($"{name}[{index}]", item, maxItemLength)).FirstOrDefault(problem => problem is not null)
                ?? items.Where(item => !parse(item, out _)).Select(item => refused(text, item)).FirstOrDefault();
            return Error is null ? [.. items.Select(item => parse(item, out var value) ? value : default!)] : null;
        }
    }
}

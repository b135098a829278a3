using System.Globalization;
using LoadEngine.Runs;
using Workloads;

namespace LoadEngine.Protocols;

/// <summary>A workload run as checked: the workload, its contender, and its settings (each one it takes, with its default filled in).</summary>
public sealed record WorkloadChoice(WorkloadInfo Workload, Contender Contender, long? FileBytes, ConnectionUse? Connection, int? Clients, BulkReadVariant? Variant, int? Users);

/// <summary>Reads a workload run's fields from a plan's text, or says what was wrong and what is allowed.</summary>
public static class WorkloadRules
{
    /// <summary>Every field a workload run may carry, in the run request's names.</summary>
    public static IReadOnlyList<string> Fields { get; } =
        ["workload", "protocol", "serializer", "httpVersion", "security", .. WorkloadParameters.All.Select(parameter => parameter.Name)];

    /// <summary>The first workload field <paramref name="input"/> gives, or null: a strategy run may give none.</summary>
    public static string? FirstGiven(RunPlanInput input) => Fields.Zip(Texts(input)).FirstOrDefault(field => !string.IsNullOrEmpty(field.Second)).First;

    public static bool TryRead(RunPlanInput input, out WorkloadChoice choice, out string error)
    {
        choice = null!;
        if (WorkloadList.Find(input.Workload) is not { } workload)
        {
            error = $"workload was '{Excerpt.Of(input.Workload)}'; it must be one of: {string.Join(", ", WorkloadList.Ids)}.";
            return false;
        }

        if (!ContenderList.TryCreate(input.Protocol, input.Serializer, input.HttpVersion, input.Security, out var contender, out error))
        {
            return false;
        }

        foreach (var (parameter, text) in WorkloadParameters.All.Zip(Texts(input).Skip(5)))
        {
            if (!string.IsNullOrEmpty(text) && !workload.Takes(parameter))
            {
                var takers = WorkloadList.All.Where(other => other.Takes(parameter)).Select(other => other.Id);
                error = $"{parameter.Name} applies to {string.Join(" and ", takers)} only; workload was '{workload.Id}'.";
                return false;
            }
        }

        long? fileBytes = null;
        ConnectionUse? connection = null;
        int? clients = null;
        BulkReadVariant? variant = null;
        int? users = null;
        if ((workload.Takes(WorkloadParameters.FileBytes) && !TryFileBytes(input.FileBytes, out fileBytes, out error))
            || (workload.Takes(WorkloadParameters.Connection) && !TryChoice(input.Connection, WorkloadParameters.Connection, ConnectionUse.Kept, out connection, out error))
            || (workload.Takes(WorkloadParameters.Clients) && !TryClients(input.Clients, out clients, out error))
            || (workload.Takes(WorkloadParameters.Variant) && !TryChoice(input.Variant, WorkloadParameters.Variant, BulkReadVariant.Pages, out variant, out error))
            || (workload.Takes(WorkloadParameters.Users) && !TryUsers(input.Users, out users, out error)))
        {
            return false;
        }

        if (variant == BulkReadVariant.Stream && !contender.IsGrpc)
        {
            error = "variant 'stream' reads the users as one gRPC server stream; protocol was 'rest', which reads them as pages (variant pages). " +
                "The stream variant allows protocol grpc or grpc-code-first.";
            return false;
        }

        choice = new WorkloadChoice(workload, contender, fileBytes, connection, clients, variant, users);
        return true;
    }

    private static IEnumerable<string?> Texts(RunPlanInput input) =>
        [input.Workload, input.Protocol, input.Serializer, input.HttpVersion, input.Security, input.FileBytes, input.Connection, input.Clients, input.Variant, input.Users];

    private static bool TryFileBytes(string? text, out long? fileBytes, out string error)
    {
        error = string.Empty;
        fileBytes = WorkloadParameters.DefaultFileBytes;
        if (string.IsNullOrEmpty(text))
        {
            return true;
        }

        if (long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value is >= WorkloadParameters.MinFileBytes and <= WorkloadParameters.MaxFileBytes)
        {
            fileBytes = value;
            return true;
        }

        error = $"fileBytes was '{text}'; it must be a whole number of bytes from {WorkloadParameters.FileBytes.Allowed} (the service's Workloads:MaxFileBytes default). " +
            "The study's sizes: 1024, 1048576, 10485760 and 104857600.";
        return false;
    }

    private static bool TryClients(string? text, out int? clients, out string error)
    {
        clients = null;
        if (!RunPlanRules.TryWhole(text, "clients", 1, WorkloadParameters.MaxClients, 1, out var value, out error, " (channels or HttpClients the calls are spread over)"))
        {
            return false;
        }

        clients = value;
        return true;
    }

    private static bool TryUsers(string? text, out int? users, out string error)
    {
        users = null;
        if (!RunPlanRules.TryWhole(text, "users", WorkloadData.UserPageSize, WorkloadData.UserCount, WorkloadData.UserCount, out var value, out error, $", a multiple of {WorkloadData.UserPageSize}")
            || value % WorkloadData.UserPageSize != 0)
        {
            error = error.Length > 0 ? error : $"users was '{text}'; it must be a whole number from {WorkloadParameters.Users.Allowed}.";
            return false;
        }

        users = value;
        return true;
    }

    private static bool TryChoice<TEnum>(string? text, WorkloadParameter parameter, TEnum fallback, out TEnum? value, out string error) where TEnum : struct, Enum
    {
        error = string.Empty;
        value = fallback;
        if (string.IsNullOrEmpty(text))
        {
            return true;
        }

        if (WireNames<TEnum>.TryParse(text, out var parsed))
        {
            value = parsed;
            return true;
        }

        error = $"{parameter.Name} was '{text}'; it must be {parameter.Allowed}.";
        return false;
    }
}

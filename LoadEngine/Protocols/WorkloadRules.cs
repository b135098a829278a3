using LoadEngine.Runs;
using Workloads;

namespace LoadEngine.Protocols;

/// <summary>Checks a workload run's fields, or says what was wrong and what is allowed.</summary>
public static class WorkloadRules
{
    /// <summary>Every field a workload run may carry, in the run request's names.</summary>
    public static IReadOnlyList<string> Fields { get; } =
        ["workload", "protocol", "serializer", "httpVersion", "security", .. WorkloadParameters.All.Select(parameter => parameter.Name)];

    public static readonly string FileBytesAllowed =
        $"a whole number of bytes from {WorkloadParameters.FileBytes.Allowed} (the service's Workloads:MaxFileBytes default). The study's sizes: 1024, 1048576, 10485760 and 104857600";

    /// <summary>The first workload field <paramref name="input"/> gives, or null: a strategy run may give none.</summary>
    public static string? FirstGiven(RunPlanInput input) => Fields.Zip(Given(input)).FirstOrDefault(field => field.Second).First;

    public static bool TryRead(RunPlanInput input, out WorkloadContender choice, out string error)
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

        foreach (var (parameter, given) in WorkloadParameters.All.Zip(Given(input).Skip(5)))
        {
            if (given && !workload.Takes(parameter))
            {
                var takers = WorkloadList.All.Where(other => other.Takes(parameter)).Select(other => other.Id);
                error = $"{parameter.Name} applies to {string.Join(" and ", takers)} only; workload was '{workload.Id}'.";
                return false;
            }
        }

        var fileBytes = workload.Takes(WorkloadParameters.FileBytes) ? input.FileBytes ?? WorkloadParameters.DefaultFileBytes : (long?)null;
        if (fileBytes is < WorkloadParameters.MinFileBytes or > WorkloadParameters.MaxFileBytes)
        {
            error = $"fileBytes was '{fileBytes}'; it must be {FileBytesAllowed}.";
            return false;
        }

        int? clients = null;
        int? users = null;
        if ((workload.Takes(WorkloadParameters.Clients)
                && !RunPlanRules.Whole(input.Clients, "clients", 1, WorkloadParameters.MaxClients, 1, out clients, out error, " (channels or HttpClients the calls are spread over)"))
            || (workload.Takes(WorkloadParameters.Users) && !TryUsers(input.Users, out users, out error)))
        {
            return false;
        }

        var variant = workload.Takes(WorkloadParameters.Variant) ? input.Variant ?? BulkReadVariant.Pages : (BulkReadVariant?)null;
        if (variant == BulkReadVariant.Stream && !contender.IsGrpc)
        {
            error = "variant 'stream' reads the users as one gRPC server stream; protocol was 'rest', which reads them as pages (variant pages). " +
                "The stream variant allows protocol grpc or grpc-code-first.";
            return false;
        }

        var connection = workload.Takes(WorkloadParameters.Connection) ? input.Connection ?? ConnectionUse.Kept : (ConnectionUse?)null;
        choice = new WorkloadContender(workload.Id, contender, fileBytes, connection, clients, variant, users);
        return true;
    }

    private static IEnumerable<bool> Given(RunPlanInput input) =>
        [input.Workload is { Length: > 0 }, input.Protocol is not null, input.Serializer is not null, input.HttpVersion is not null, input.Security is not null,
            input.FileBytes is not null, input.Connection is not null, input.Clients is not null, input.Variant is not null, input.Users is not null];

    private static bool TryUsers(int? given, out int? users, out string error)
    {
        if (!RunPlanRules.Whole(given, "users", WorkloadData.UserPageSize, WorkloadData.UserCount, WorkloadData.UserCount, out users, out error, $", a multiple of {WorkloadData.UserPageSize}"))
        {
            return false;
        }

        error = users % WorkloadData.UserPageSize != 0 ? $"users was '{given}'; it must be a whole number from {WorkloadParameters.Users.Allowed}." : string.Empty;
        return error.Length == 0;
    }
}

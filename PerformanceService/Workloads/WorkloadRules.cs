using Workloads;

namespace PerformanceService.Workloads;

/// <summary>
/// What every path accepts, checked alike: null when a request is fine, otherwise the sentence its caller gets (gRPC as
/// INVALID_ARGUMENT, REST as a 400 problem), naming what was wrong and what is allowed.
/// </summary>
public static class WorkloadRules
{
    /// <summary>Items are kept for this many ids; any other id is taken modulo it, so the kept data stays bounded.</summary>
    public const int ItemRange = 1000;

    public static string? Item(int id) =>
        id < 0 ? $"id was {id}; it must be 0 or more (ids are taken modulo {ItemRange})." : null;

    /// <summary>The collection is page 0 of <see cref="WorkloadData.CollectionSize"/> big DTOs; a page is usually <see cref="WorkloadData.PageSize"/>.</summary>
    public const int MaxBigDtoPageSize = WorkloadData.CollectionSize;

    public const int MaxUserPageSize = WorkloadData.UserPageSize;

    /// <summary>A server stream of users may cover every user at once.</summary>
    public const int MaxUserStreamSize = WorkloadData.UserCount;

    public static string FileTooLarge(long maxBytes) =>
        $"The file is larger than {maxBytes} bytes, the most this service accepts (Workloads:MaxFileBytes); send at most {maxBytes} bytes.";

    public static string? Page(int page, int size, int maxSize) =>
        page < 0 ? $"page was {page}; it must be 0 or more."
        : size < 1 || size > maxSize ? $"size was {size}; it must be between 1 and {maxSize}."
        : null;
}

using System.Globalization;

namespace PerformanceService.Workloads;

/// <summary>
/// REST's id, page and size as they arrive (text in the route or query), read into the numbers the gRPC paths receive
/// and checked by the same <see cref="WorkloadRules"/>: null when they are fine, otherwise the sentence for a 400.
/// </summary>
public static class RestArguments
{
    public static string? Id(string raw, out int id) =>
        int.TryParse(raw, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out id)
            ? WorkloadRules.Item(id)
            : $"id was '{raw}'; it must be a whole number, 0 or more (ids are taken modulo {WorkloadRules.ItemRange}).";

    /// <summary>A page of at most <paramref name="maxSize"/>: page defaults to 0, size must be given.</summary>
    public static string? Page(string? rawPage, string? rawSize, int maxSize, out int page, out int size)
    {
        size = 0;
        page = 0;
        if (rawPage is not null && !int.TryParse(rawPage, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out page))
        {
            return $"page was '{rawPage}'; it must be a whole number, 0 or more.";
        }

        if (rawSize is null)
        {
            return $"size is missing; it must be a whole number between 1 and {maxSize}, as in ?page=0&size={maxSize}.";
        }

        return int.TryParse(rawSize, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out size)
            ? WorkloadRules.Page(page, size, maxSize)
            : $"size was '{rawSize}'; it must be a whole number between 1 and {maxSize}.";
    }
}

namespace LoadEngine;

/// <summary>How far one spelling is from another, for the "did you mean" of a name the caller mistyped (a query parameter, a CLI option).</summary>
public static class Spelling
{
    /// <summary>The edits (insert, delete or replace a letter) from one spelling to the other, letter case counting.</summary>
    public static int Distance(string from, string to)
    {
        var row = Enumerable.Range(0, to.Length + 1).ToArray();
        for (var i = 1; i <= from.Length; i++)
        {
            var diagonal = row[0];
            row[0] = i;
            for (var j = 1; j <= to.Length; j++)
            {
                var above = row[j];
                row[j] = Math.Min(Math.Min(row[j] + 1, row[j - 1] + 1), diagonal + (from[i - 1] == to[j - 1] ? 0 : 1));
                diagonal = above;
            }
        }

        return row[to.Length];
    }
}

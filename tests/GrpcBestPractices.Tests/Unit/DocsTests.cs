using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Deploy;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// The README and docs/ held to the code: every setting the apps read is named in docs/configuration.md and every
/// option of ./loadtest in docs/cli.md (and neither page names one that does not exist), every relative link lands on a
/// file and heading of the repository, and the README stays a short guide that shows a real screenshot.
/// </summary>
public sealed class DocsTests
{
    public const int ReadmeMostLines = 250;

    // The apps whose settings docs/configuration.md documents, by the name its tables give them in the "app" column.
    private static readonly Dictionary<string, string[]> AppsByColumn = new(StringComparer.Ordinal)
    {
        ["gateway"] = ["ApiGateway"],
        ["service"] = ["PerformanceService"],
        ["both"] = ["ApiGateway", "PerformanceService"],
        ["agent"] = ["LoadTest"],
    };

    [Fact]
    public void TheConfigurationPageNamesEverySettingTheAppsRead()
    {
        var page = DocsChecks.Read("docs/configuration.md");

        var unnamed = AppsByColumn.Values.SelectMany(apps => apps).Distinct()
            .SelectMany(app => DocsChecks.UnnamedSettings(AppSettingKeys.Of(app), page).Select(key => $"{key} ({app})")).ToList();

        Assert.True(unnamed.Count == 0, $"docs/configuration.md does not name these settings the apps read: {string.Join(", ", unnamed)}");
    }

    [Fact]
    public void TheConfigurationPageListsNoSettingItsAppDoesNotRead()
    {
        var page = DocsChecks.Read("docs/configuration.md");

        var unread = DocsChecks.UnreadSettings(page, column => AppsByColumn.TryGetValue(column, out var apps) ? apps.Select(AppSettingKeys.Of).ToList() : null).ToList();

        Assert.True(unread.Count == 0, $"docs/configuration.md lists settings its app does not read: {string.Join("; ", unread)}");
    }

    [Fact]
    public void TheCliPageNamesEveryOptionOfLoadtestAndNoOther()
    {
        var page = DocsChecks.Read("docs/cli.md");
        var options = new LoadTestCommand().AllOptions.Select(option => option.Name).ToList();

        var unnamed = DocsChecks.UnnamedOptions(options, page).ToList();
        // ghz's spellings (--rps, --timeout, --cname) are the options' aliases, which the page may name too.
        var unknown = DocsChecks.UnknownOptions([.. options, .. new LoadTestCommand().AllOptions.SelectMany(option => option.Aliases)], page).ToList();

        Assert.True(unnamed.Count == 0, $"docs/cli.md does not name these options of ./loadtest: {string.Join(", ", unnamed)}");
        Assert.True(unknown.Count == 0, $"docs/cli.md's options table names options ./loadtest does not have: {string.Join(", ", unknown)}");
    }

    [Fact]
    public void EveryRelativeLinkInTheReadmeAndDocsLandsOnAFileAndHeading()
    {
        var broken = DocsChecks.Pages().SelectMany(DocsChecks.BrokenLinks).ToList();

        Assert.True(broken.Count == 0, $"Broken links:{Environment.NewLine}{string.Join(Environment.NewLine, broken)}");
    }

    [Fact]
    public void TheReadmeIsShortAndShowsAPngScreenshotFromDocs()
    {
        var readme = DocsChecks.Read("README.md");

        var problems = DocsChecks.ReadmeProblems(readme, ReadmeMostLines).ToList();

        Assert.True(problems.Count == 0, string.Join(Environment.NewLine, problems));
    }

    // Each check on a broken sample: a check that cannot fail would prove nothing about the docs.

    [Fact]
    public void UnnamedSettingsCatchAKeyThePageLeavesOutAndAcceptItsEnvironmentSpelling()
    {
        var page = "| `Runs:MaxCount` | gateway |\nSet `ASPNETCORE_URLS` or `--History:Provider Postgres`; `Agents__JoinTimeoutSeconds` too.";

        var unnamed = DocsChecks.UnnamedSettings(["Runs:MaxCount", "urls", "History:Provider", "Agents:JoinTimeoutSeconds", "Runs:MaxWarmup"], page);

        Assert.Equal(["Runs:MaxWarmup"], unnamed);
    }

    [Fact]
    public void UnreadSettingsCatchAKeyListedUnderAnAppThatDoesNotReadIt()
    {
        var page = """
            | key | app | default |
            |---|---|---|
            | `Runs:MaxCount` | gateway | 100 000 |
            | `Protocols:CertificateFolder` | gateway | `data` |
            | `Monitor:Nope` | service | 1 |
            """;
        IReadOnlySet<string> gateway = new HashSet<string>(["Runs:MaxCount"], StringComparer.OrdinalIgnoreCase);
        IReadOnlySet<string> service = new HashSet<string>(["Protocols:CertificateFolder"], StringComparer.OrdinalIgnoreCase);

        var unread = DocsChecks.UnreadSettings(page, column => column switch { "gateway" => [gateway], "service" => [service], _ => null }).ToList();

        Assert.Equal(["Protocols:CertificateFolder (gateway)", "Monitor:Nope (service)"], unread);
    }

    [Fact]
    public void OptionChecksCatchAnOptionLeftOutAndOneThatDoesNotExist()
    {
        var page = "| option | what |\n|---|---|\n| `--target <url>`, `--bogus` | … |\n\nRun `./loadtest --no-build --count 5`.";

        Assert.Equal(["--strategy"], DocsChecks.UnnamedOptions(["--target", "--strategy", "--count"], page));
        Assert.Equal(["--bogus"], DocsChecks.UnknownOptions(["--target", "--strategy", "--count"], page));
    }

    [Fact]
    public void BrokenLinksCatchAMissingFileAMissingHeadingAndIgnoreCode()
    {
        var folder = Directory.CreateTempSubdirectory("docs-links-");
        try
        {
            File.WriteAllText(Path.Combine(folder.FullName, "other.md"), "# Other\n\n## `bench/run.sh`: how close — really\n");
            var page = new DocsPage(Path.Combine(folder.FullName, "page.md"), """
                # Page
                See [other](other.md), [its heading](other.md#benchrunsh-how-close--really), [here](#page) and [the web](https://example.com).
                Broken: [gone](gone.md), [no heading](other.md#nowhere), [no anchor here](#nothing).
                `[not a link](in-code.md)`
                ```
                [nor this](in-a-block.md)
                ```
                """);

            var broken = DocsChecks.BrokenLinks(page, folder.FullName).ToList();

            Assert.Equal(3, broken.Count);
            Assert.Contains(broken, problem => problem.Contains("gone.md", StringComparison.Ordinal));
            Assert.Contains(broken, problem => problem.Contains("other.md#nowhere", StringComparison.Ordinal));
            Assert.Contains(broken, problem => problem.Contains("#nothing", StringComparison.Ordinal));
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Fact]
    public void ReadmeProblemsCatchALongReadmeAndAScreenshotThatIsNotAPng()
    {
        var folder = Directory.CreateTempSubdirectory("docs-readme-");
        try
        {
            Directory.CreateDirectory(Path.Combine(folder.FullName, "docs"));
            File.WriteAllText(Path.Combine(folder.FullName, "docs", "fake.png"), "not a PNG");
            var readme = "# Title\n![page](docs/fake.png)\n" + string.Concat(Enumerable.Repeat("line\n", 10));

            var problems = DocsChecks.ReadmeProblems(readme, mostLines: 5, root: folder.FullName).ToList();

            Assert.Contains(problems, problem => problem.Contains("12 lines", StringComparison.Ordinal));
            Assert.Contains(problems, problem => problem.Contains("docs/fake.png does not start with the PNG signature", StringComparison.Ordinal));
            Assert.Contains("shows no PNG under docs/", DocsChecks.ReadmeProblems("# Title\n![page](https://example.com/a.png)\n", 5, folder.FullName).Single(), StringComparison.Ordinal);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }
}

/// <summary>A Markdown file of the repository: its path and its text.</summary>
public sealed record DocsPage(string Path, string Text);

/// <summary>
/// The checks behind <see cref="DocsTests"/>, each a list of what is wrong (empty when all is well), so the tests can
/// prove on broken samples that each one does catch its mistake.
/// </summary>
public static partial class DocsChecks
{
    private static readonly byte[] PngSignature = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];

    public static string Read(string relativePath) => File.ReadAllText(Path.Combine(AppProcess.RepositoryRoot, relativePath));

    /// <summary>README.md and every page under docs/.</summary>
    public static IEnumerable<DocsPage> Pages()
    {
        var root = AppProcess.RepositoryRoot;
        return new[] { Path.Combine(root, "README.md") }.Concat(Directory.EnumerateFiles(Path.Combine(root, "docs"), "*.md", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
            .Select(path => new DocsPage(path, File.ReadAllText(path)));
    }

    /// <summary>
    /// The keys no code span of the page names. A span names a key in any spelling configuration accepts: the key itself
    /// (ignoring case), a command-line <c>--Key</c>, or an environment variable (<c>Runs__MaxCount</c>, <c>ASPNETCORE_URLS</c>).
    /// </summary>
    public static IEnumerable<string> UnnamedSettings(IEnumerable<string> keys, string page)
    {
        var named = CodeSpans(page).SelectMany(span => span.Split([' ', '=', ',', ';'], StringSplitOptions.RemoveEmptyEntries))
            .Select(token => AppSettingKeys.FromEnvironmentName(token.TrimStart('-')))
            .ToHashSet(StringComparer.OrdinalIgnoreCase);
        return keys.Where(key => !named.Contains(key)).Order(StringComparer.Ordinal);
    }

    /// <summary>
    /// Each table row whose first cell is a key in a code span and whose second cell names an app (as
    /// <paramref name="keysOfColumn"/> knows it) must list a key every such app reads.
    /// </summary>
    public static IEnumerable<string> UnreadSettings(string page, Func<string, IReadOnlyList<IReadOnlySet<string>>?> keysOfColumn)
    {
        foreach (var cells in TableRows(page))
        {
            if (cells.Count < 2 || CodeSpans(cells[0]).ToList() is not [var key] || keysOfColumn(cells[1]) is not { } apps)
            {
                continue;
            }

            if (apps.Any(keys => !keys.Contains(key)))
            {
                yield return $"{key} ({cells[1]})";
            }
        }
    }

    /// <summary>The options no code span of the page names as a whole word.</summary>
    public static IEnumerable<string> UnnamedOptions(IEnumerable<string> options, string page)
    {
        var named = CodeSpans(page).SelectMany(span => OptionPattern().Matches(span).Select(match => match.Value)).ToHashSet(StringComparer.Ordinal);
        return options.Where(option => !named.Contains(option));
    }

    /// <summary>The options the first column of the page's tables names that the command does not have.</summary>
    public static IEnumerable<string> UnknownOptions(IEnumerable<string> options, string page)
    {
        var known = options.ToHashSet(StringComparer.Ordinal);
        return TableRows(page).SelectMany(cells => CodeSpans(cells[0])).SelectMany(span => OptionPattern().Matches(span).Select(match => match.Value))
            .Where(option => !known.Contains(option)).Distinct();
    }

    /// <summary>Relative links and images of the page that lead to no file or folder of the repository, or to no heading.</summary>
    public static IEnumerable<string> BrokenLinks(DocsPage page) => BrokenLinks(page, AppProcess.RepositoryRoot);

    public static IEnumerable<string> BrokenLinks(DocsPage page, string root)
    {
        var folder = Path.GetDirectoryName(page.Path)!;
        var where = Path.GetRelativePath(root, page.Path);
        foreach (var target in Links(page.Text))
        {
            if (Uri.TryCreate(target, UriKind.Absolute, out var absolute) && absolute.Scheme is "http" or "https" or "mailto")
            {
                continue;
            }

            var hash = target.IndexOf('#', StringComparison.Ordinal);
            var file = Uri.UnescapeDataString(hash < 0 ? target : target[..hash]);
            var anchor = hash < 0 ? null : target[(hash + 1)..];
            if (file.Length == 0)
            {
                if (anchor is not null && !HeadingAnchors(page.Text).Contains(anchor))
                {
                    yield return $"{where}: ({target}) names no heading of this page.";
                }

                continue;
            }

            var path = Path.GetFullPath(Path.Combine(folder, file));
            if (!path.StartsWith(Path.GetFullPath(root), StringComparison.Ordinal) || !(File.Exists(path) || Directory.Exists(path)))
            {
                yield return $"{where}: ({target}) leads to no file of the repository.";
            }
            else if (anchor is not null && (!path.EndsWith(".md", StringComparison.Ordinal) || !HeadingAnchors(File.ReadAllText(path)).Contains(anchor)))
            {
                yield return $"{where}: ({target}) names no heading of {Path.GetRelativePath(root, path)}.";
            }
        }
    }

    /// <summary>What keeps the README from being a short guide: too many lines, or no screenshot under docs/ that is a real PNG.</summary>
    public static IEnumerable<string> ReadmeProblems(string readme, int mostLines) => ReadmeProblems(readme, mostLines, AppProcess.RepositoryRoot);

    public static IEnumerable<string> ReadmeProblems(string readme, int mostLines, string root)
    {
        var lines = readme.TrimEnd('\n').Split('\n').Length;
        if (lines > mostLines)
        {
            yield return $"README.md has {lines} lines; a newcomer's guide has at most {mostLines}: move reference into docs/.";
        }

        var screenshots = ImagePattern().Matches(WithoutCode(readme)).Select(match => match.Groups["target"].Value)
            .Where(target => target.StartsWith("docs/", StringComparison.Ordinal) && target.EndsWith(".png", StringComparison.OrdinalIgnoreCase)).ToList();
        if (screenshots.Count == 0)
        {
            yield return "README.md shows no PNG under docs/ (![...](docs/....png)).";
        }

        foreach (var screenshot in screenshots)
        {
            var path = Path.Combine(root, screenshot);
            if (!File.Exists(path))
            {
                yield return $"README.md shows {screenshot}, which does not exist.";
                continue;
            }

            using var file = File.OpenRead(path);
            var start = new byte[PngSignature.Length];
            if (file.ReadAtLeast(start, start.Length, throwOnEndOfStream: false) < start.Length || !start.AsSpan().SequenceEqual(PngSignature))
            {
                yield return $"README.md shows {screenshot}, but {screenshot} does not start with the PNG signature.";
            }
        }
    }

    /// <summary>The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as '-', repeats numbered.</summary>
    public static IReadOnlySet<string> HeadingAnchors(string markdown)
    {
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        var seen = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (Match heading in HeadingPattern().Matches(WithoutFences(markdown)))
        {
            var text = heading.Groups["text"].Value.Replace("`", "", StringComparison.Ordinal);
            var slug = new StringBuilder();
            foreach (var letter in text.Trim().ToLowerInvariant())
            {
                if (letter == ' ')
                {
                    slug.Append('-');
                }
                else if (letter is '-' or '_' || char.IsLetterOrDigit(letter))
                {
                    slug.Append(letter);
                }
            }

            var anchor = slug.ToString();
            var count = seen.GetValueOrDefault(anchor);
            seen[anchor] = count + 1;
            anchors.Add(count == 0 ? anchor : string.Create(CultureInfo.InvariantCulture, $"{anchor}-{count}"));
        }

        return anchors;
    }

    private static IEnumerable<string> Links(string markdown) =>
        LinkPattern().Matches(WithoutCode(markdown)).Select(match => match.Groups["target"].Value);

    private static IEnumerable<string> CodeSpans(string markdown) =>
        CodeSpanPattern().Matches(WithoutFences(markdown)).Select(match => match.Groups["code"].Value.Replace("\\|", "|", StringComparison.Ordinal));

    /// <summary>Each table row's cells (the header and separator rows included), a cell's escaped '\|' kept inside it.</summary>
    private static IEnumerable<List<string>> TableRows(string markdown) =>
        WithoutFences(markdown).Split('\n').Where(line => line.StartsWith('|'))
            .Select(line => CellSeparator().Split(line.Trim().Trim('|')).Select(cell => cell.Trim()).ToList());

    private static string WithoutCode(string markdown) => CodeSpanPattern().Replace(WithoutFences(markdown), "");

    private static string WithoutFences(string markdown) => FencePattern().Replace(markdown, "");

    [GeneratedRegex(@"^\s*```.*?^\s*```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex FencePattern();

    [GeneratedRegex(@"`(?<code>[^`\n]+)`")]
    private static partial Regex CodeSpanPattern();

    [GeneratedRegex(@"\]\((?<target>[^)\s]+)(\s+""[^""]*"")?\)")]
    private static partial Regex LinkPattern();

    [GeneratedRegex(@"!\[[^\]]*\]\((?<target>[^)\s]+)(\s+""[^""]*"")?\)")]
    private static partial Regex ImagePattern();

    [GeneratedRegex(@"^#{1,6}\s+(?<text>.+?)\s*#*\s*$", RegexOptions.Multiline)]
    private static partial Regex HeadingPattern();

    [GeneratedRegex(@"(?<![\w-])--[a-z0-9][a-z0-9-]*")]
    private static partial Regex OptionPattern();

    [GeneratedRegex(@"(?<!\\)\|")]
    private static partial Regex CellSeparator();
}

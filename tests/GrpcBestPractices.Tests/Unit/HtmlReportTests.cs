using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Reports;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The single-file HTML report, read as HTML: what it shows, what it inlines, and that data never becomes markup.</summary>
public sealed partial class HtmlReportTests
{
    private static readonly DateTimeOffset GeneratedAt = SampleRuns.Started.AddMinutes(5);

    [Fact]
    public void ADescribedMethodsRunShowsItsCallAndItsFirstAnswerAsText()
    {
        var run = SampleRuns.Completed("client-wrapper");
        run = run with
        {
            Plan = run.Plan.Calling("shop.v1.Orders/Place", target: "shop"),
            Stats = run.Stats! with { FirstAnswer = "{ \"orderId\": \"<b>o-1</b>\" }" },
        };

        var report = Parse(HtmlReport.Render(ReportContent.ForRun(run, GeneratedAt, "http://127.0.0.1:5000")));

        Assert.Contains("Target shop", report.Text);
        Assert.Contains("Call shop.v1.Orders/Place", report.Text);
        Assert.Contains("<h3>First answer</h3><pre class=\"answer\">{ &quot;orderId&quot;: &quot;&lt;b&gt;o-1&lt;/b&gt;&quot; }</pre>", report.Html);
    }

    [Fact]
    public void ADescribedMethodsRunShowsItsRequestDataAndMetadataKeysNotTheBuiltInServicesDelayAndPayload()
    {
        var run = SampleRuns.Completed("client-wrapper");
        var longData = $"{{\"note\": \"<script>alert(1)</script>{new string('x', RunSectionLimit)}\"}}";
        run = run with { Plan = run.Plan.Calling("acme.billing.v2.Invoices/Get", longData, "billing") };

        var report = Parse(HtmlReport.Render(ReportContent.ForRun(run, GeneratedAt) with { MetadataKeys = ["x-tenant", "authorization"] }));

        Assert.DoesNotContain("Server delay", report.Text);
        Assert.DoesNotContain("bytes per field", report.Text);
        Assert.Contains("Metadata keys x-tenant, authorization (values not shown)", report.Text);
        var request = RequestBlock().Match(report.Html);
        Assert.True(request.Success, "no request data block");
        Assert.StartsWith("{&quot;note&quot;: &quot;&lt;script&gt;alert(1)&lt;/script&gt;xxx", request.Groups[1].Value);
        Assert.EndsWith($"… ({longData.Length - RunSectionLimit:#,0} more characters not shown)", WebUtility.HtmlDecode(request.Groups[1].Value));
        Assert.True(WebUtility.HtmlDecode(request.Groups[1].Value).Length < RunSectionLimit + 60, "the request data is not cut");
    }

    [Fact]
    public void TheBuiltInServicesRunKeepsItsDelayAndPayloadAndShowsNoRequestData()
    {
        var report = Parse(HtmlReport.Render(ReportContent.ForRun(SampleRuns.Completed("client-wrapper"), GeneratedAt) with { MetadataKeys = ["x-tenant"] }));

        Assert.Contains("Server delay 1 ms", report.Text);
        Assert.DoesNotContain("Metadata keys", report.Text);
        Assert.DoesNotContain("class=\"request\"", report.Html);
    }

    [Fact]
    public void ALongFirstAnswerWrapsWithinThePageInsteadOfWideningIt()
    {
        var css = ReportStyle().Match(HtmlReport.Render(ReportContent.ForRun(SampleRuns.Completed("client-wrapper"), GeneratedAt))).Groups[1].Value;

        var rule = Regex.Match(css, @"pre\.answer[^{]*\{([^}]*)\}");
        Assert.True(rule.Success, "no style for the first answer");
        Assert.Contains("white-space: pre-wrap", rule.Groups[1].Value);
        Assert.Contains("overflow-wrap: anywhere", rule.Groups[1].Value);
    }

    private const int RunSectionLimit = 2000;

    [GeneratedRegex("<h3>Request data</h3><pre class=\"request\">(.*?)</pre>", RegexOptions.Singleline)]
    private static partial Regex RequestBlock();

    [GeneratedRegex("<style>(.*?)</style>", RegexOptions.Singleline)]
    private static partial Regex ReportStyle();

    [Fact]
    public void ARunReportShowsThePlanTheKeyFiguresEveryPercentileAndTheVerdict()
    {
        var run = SampleRuns.Completed("client-wrapper");

        var report = Parse(HtmlReport.Render(ReportContent.ForRun(run, GeneratedAt, "http://127.0.0.1:5000")));

        Assert.Equal("client-wrapper: run report", report.Title);
        Assert.Equal("passed", report.Verdict);
        foreach (var expected in new[]
        {
            "Target: http://127.0.0.1:5000", "Generated 2026-11-22 14:08:05 UTC+01:00",
            "✓ PASSED Every threshold held: 2 in 1 run.", "1 of 1 run completed.",
            "client-wrapper Completed", "Measured: One unary call through client-wrapper, from the client's send to the answer.",
            "Load model closed: a fixed number of calls in flight", "Bounded by 1,000 calls", "Concurrency 16 in flight at most",
            "Warm-up 20 calls, not measured", "Server delay 1 ms", "Payload 100 bytes per field",
            "Wall time 2,512 ms", "Throughput 398 calls/s", "Calls 1,000", "Succeeded 1,000", "Failed 0", "Error rate 0 %",
            "First call 41.7 ms", "Connections 1", "Service CPU 35.5 % mean, 71.3 % max (3 samples)",
            "Verdict: ✓ PASSED — all 2 thresholds held.", "p99 < 5ms 3.43 ms < 5 ms ✓ passed", "error_rate < 1% 0 % < 1 % ✓ passed",
            "Status Calls Share OK 1,000 100 %",
        })
        {
            Assert.Contains(expected, report.Text);
        }

        // Every percentile the plan asked for, then min, max, mean and standard deviation.
        Assert.Contains("Percentile Latency (ms) min 0.210 p50 0.980 p75 1.41 p90 1.87 p95 2.36 p99 3.43 p99.9 6.10 p99.99 9.80 max 12.6 mean 1.13 standard deviation 0.740", report.Text);
        Assert.Equal(["histogram:0", "rate:0", "latency:0"], report.Charts);
    }

    [Fact]
    public void TheSeriesAndHistogramAreInlinedAsDataAndTablesWithRatesPerSecondNotPerBucket()
    {
        var run = SampleRuns.Completed("client-wrapper", passed: false);

        var report = Parse(HtmlReport.Render(ReportContent.ForRun(run, GeneratedAt)));

        var data = report.Data.GetProperty("runs")[0];
        Assert.Equal(SampleRuns.IntervalMs, data.GetProperty("series").GetProperty("intervalMs").GetDouble());
        Assert.Equal(run.Series!.Points.Select(point => point.Calls), data.GetProperty("series").GetProperty("points").EnumerateArray().Select(point => point.GetProperty("calls").GetInt64()));
        Assert.Equal(run.Stats!.Histogram.Select(bin => bin.Count), data.GetProperty("stats").GetProperty("histogram").EnumerateArray().Select(bin => bin.GetProperty("count").GetInt64()));
        Assert.Equal(HtmlReport.Palette[0], report.Data.GetProperty("colours").GetProperty("client-wrapper").GetString());
        // First bucket: 51 calls and 3 errors in 250 ms are 204 calls/s and 12 errors/s.
        Assert.Contains("0.250 51 204 3 12 Unavailable 3", report.Text);
        Assert.Contains("From (ms) To (ms) Calls 0.200 0.250 1 0.250 0.313 2", report.Text);
        Assert.Contains("Bucket end (s) p50 p90 p99 max 0.250 0.900 1.80 3.40 9.50", report.Text);
        Assert.Contains("1.25 0.900 1.80 3.80 —", report.Text);
        Assert.Equal("failed", report.Verdict);
        Assert.Contains("✗ FAILED 1 of 2 thresholds failed, in 1 of 1 judged run.", report.Text);
        Assert.Contains("error_rate < 1% 1.20 % < 1 % ✗ failed", report.Text);
        Assert.Contains("Status Calls Share OK 988 98.8 % Unavailable 12 1.20 %", report.Text);
    }

    [Fact]
    public void AnArrivalRateRunShowsLatencyFromBothSendsAndHowTheScheduleWasKept()
    {
        var report = Parse(HtmlReport.Render(ReportContent.ForRun(SampleRuns.Open("single-connection"), GeneratedAt)));

        Assert.Contains("Load model open: a constant arrival rate", report.Text);
        Assert.Contains("Bounded by 2.50 s", report.Text);
        Assert.Contains("Rate 400 calls/s", report.Text);
        Assert.Contains("Percentile From the intended send (coordinated-omission corrected), ms From the actual send, ms " +
                        "min 0.420 0.336 p50 1.96 1.57 p75 2.82 2.26", report.Text);
        Assert.Contains("p99.99 19.6 15.7 max 25.2 20.2 mean 2.26 1.81 standard deviation 1.48 1.18", report.Text);
        foreach (var expected in new[]
        {
            "Intended (due) calls 1,000", "Sent 990", "Late (more than 5 ms after their time) 37", "Dropped (the client had its maximum in flight) 10",
            "Requested rate 400 calls/s", "Achieved rate 396 calls/s", "Send lag p50 0.310 ms", "Send lag p99 7.25 ms", "Send lag max 18.5 ms",
            "Verdict: ✗ FAILED — 1 of 2 thresholds failed.", "p99 < 5ms 6.86 ms < 5 ms ✗ failed",
        })
        {
            Assert.Contains(expected, report.Text);
        }
    }

    [Fact]
    public void ASuiteReportComparesTheStrategiesThenGivesEachRunItsSectionInOneColourEverywhere()
    {
        var content = SampleRuns.SuiteReport();

        var report = Parse(HtmlReport.Render(content));

        Assert.Equal("Suite of 3 strategies: report", report.Title);
        Assert.Equal("failed", report.Verdict);
        Assert.Contains("✗ FAILED 1 of 4 thresholds failed, in 1 of 2 judged runs. 1 run with thresholds ended without a verdict. 2 of 3 runs completed, 1 of 3 runs failed.", report.Text);
        Assert.Contains("Suite: 3 strategies, one after another Completed", report.Text);
        Assert.Contains("Strategy State Wall ms × fastest Calls/s p50 ms p99 ms Failed Error rate Connections Verdict " +
                        "client-wrapper Completed 2,512 1.00× 398 0.980 3.43 0 0 % 1 ✓ passed " +
                        "single-connection Completed 5,025 2.00× 199 1.96 6.86 0 0 % 1 ✗ failed " +
                        "channel-per-call Failed — — — — — — — — ✗ not judged", report.Text);
        Assert.Contains("Error: The service at http://127.0.0.1:1 refused the connection.", report.Text);
        Assert.Contains("No figures: the run ended before it measured any call.", report.Text);
        Assert.Equal(["suite-wall", "suite-throughput", "suite-p50", "suite-p99", "suite-distribution", "histogram:0", "rate:0", "latency:0", "histogram:1", "rate:1", "latency:1"], report.Charts);

        for (var index = 0; index < content.Runs.Count; index++)
        {
            var strategy = content.Runs[index].Plan.Strategy;
            Assert.Equal(HtmlReport.Palette[index], report.Data.GetProperty("colours").GetProperty(strategy).GetString());
            // The contents list, the comparison table and the section heading all paint the strategy with its one class.
            var swatches = Regex.Matches(report.Html, $"<span class=\"swatch (c\\d)\" aria-hidden=\"true\"></span>(?:<a href=\"#run-{index + 1}\">)?{Regex.Escape(strategy)}");
            Assert.Equal(3, swatches.Count);
            Assert.All(swatches, swatch => Assert.Equal($"c{index}", swatch.Groups[1].Value));
            Assert.Contains($"<section class=\"panel run c{index}\" id=\"run-{index + 1}\"", report.Html);
        }

        Assert.Equal(3, report.Data.GetProperty("runs").GetArrayLength());
        Assert.Equal(content.Suite!.Id, report.Data.GetProperty("suite").GetProperty("id").GetGuid());
    }

    [Fact]
    public void ColoursFollowTheGivenCatalogOrderSoTheReportMatchesTheChartPage()
    {
        var content = SampleRuns.SuiteReport() with { ColourOrder = ["streaming", "channel-per-call", "single-connection", "client-wrapper"] };

        var colours = Parse(HtmlReport.Render(content)).Data.GetProperty("colours");

        Assert.Equal(HtmlReport.Palette[1], colours.GetProperty("channel-per-call").GetString());
        Assert.Equal(HtmlReport.Palette[2], colours.GetProperty("single-connection").GetString());
        Assert.Equal(HtmlReport.Palette[3], colours.GetProperty("client-wrapper").GetString());
    }

    [Fact]
    public void ThePageAndTheReportTakeTheirPaletteFromTheOnePalette()
    {
        var report = Parse(HtmlReport.Render(SampleRuns.SuiteReport()));
        var scripts = Directory.GetFiles(Path.Combine(AppProcess.RepositoryRoot, "ApiGateway", "wwwroot", "js"), "*.js")
            .Append(Path.Combine(AppProcess.RepositoryRoot, "LoadEngine", "Reports", "report.js"));

        // The page reads GET /api/plan-facts, whose palette is the one the report paints with; no script keeps a copy.
        Assert.Same(HtmlReport.Palette, ApiGateway.Endpoints.PlanFacts.For(new ApiGateway.Configuration.RunLimitsOptions()).Palette);
        Assert.All(HtmlReport.Palette.Select((colour, index) => $".c{index} {{ --colour: {colour}; }}"), rule => Assert.Contains(rule, report.Styles[0]));
        Assert.All(scripts, script => Assert.DoesNotContain(HtmlReport.Palette, colour => File.ReadAllText(script).Contains(colour, StringComparison.OrdinalIgnoreCase)));
        Assert.Subset(HtmlReport.Palette.ToHashSet(), HtmlReport.ApiColours.Values.ToHashSet());
    }

    [Fact]
    public void ASuiteWhoseRunsHadDifferentLoadsNamesEachLoadWithItsStrategies()
    {
        var suiteId = Guid.NewGuid();
        RunRecord[] runs =
        [
            SampleRuns.Completed("factory-client", suiteId: suiteId) with { Plan = SampleRuns.Plan("factory-client", LoadKind.Sequential) with { Count = 2000, Duration = null } },
            SampleRuns.Completed("single-connection", suiteId: suiteId) with { Plan = SampleRuns.Plan("single-connection") with { Concurrency = 2000 } },
        ];
        var content = ReportContent.ForSuite(SampleRuns.Suite(suiteId, [.. runs.Select(run => run.Plan.Strategy)]) with { Plan = runs[0].Plan }, runs, GeneratedAt);

        var report = Parse(HtmlReport.Render(content));

        Assert.Contains("Load model each strategy's own: sequential: one call in flight (factory-client); closed: a fixed number of calls in flight (single-connection) Bounded by", report.Text);
        Assert.Matches("factory-client Completed .*Load model sequential: one call in flight .*single-connection Completed .*Load model closed: a fixed number of calls in flight Bounded by 1,000 calls Concurrency 2,000 in flight at most", report.Text);
    }

    [Fact]
    public void ASuiteWhoseRunsSharedOneLoadNamesItOnce()
    {
        var suiteId = Guid.NewGuid();
        RunRecord[] runs = [SampleRuns.Completed("client-wrapper", suiteId: suiteId), SampleRuns.Completed("channel-per-call", 2, suiteId: suiteId)];

        var report = Parse(HtmlReport.Render(ReportContent.ForSuite(SampleRuns.Suite(suiteId, [.. runs.Select(run => run.Plan.Strategy)]), runs, GeneratedAt)));

        Assert.Contains("Load model closed: a fixed number of calls in flight Bounded by", report.Text);
        Assert.DoesNotContain("each strategy's own", report.Text);
    }

    /// <summary>
    /// What is checked: every tag has no attribute that loads or sends anything (src, srcset, action, formaction, poster,
    /// data, background, ping) and no href but "#anchor"; no element that loads (link, base, img, iframe, object, embed,
    /// audio, video, source, meta refresh); the style has no url( or @import; the scripts, once the bundle's "/*!" license
    /// comments are cut, name no http:// or https:// address, no source map, and no fetch, XMLHttpRequest, WebSocket,
    /// EventSource, sendBeacon, import( or importScripts. Text may show an address (the target), as text: it loads nothing.
    /// The browser test proves the rest: opened offline, the file makes no request.
    /// </summary>
    [Fact]
    public void TheReportReferencesNothingOutsideItself()
    {
        var report = Parse(HtmlReport.Render(SampleRuns.SuiteReport()));

        foreach (Match tag in Tag().Matches(report.Markup))
        {
            Assert.DoesNotMatch("^(link|base|img|iframe|object|embed|audio|video|source|track|frame|frameset)$", tag.Groups["name"].Value.ToLowerInvariant());
            foreach (var (name, value) in Attributes(tag.Value))
            {
                Assert.DoesNotMatch("^(src|srcset|action|formaction|poster|data|background|ping|manifest)$", name.ToLowerInvariant());
                Assert.False(name == "href" && !value.StartsWith('#'), $"{tag.Value} links outside the file");
                Assert.False(name == "http-equiv" && value.Equals("refresh", StringComparison.OrdinalIgnoreCase), $"{tag.Value} loads another page");
            }
        }

        Assert.Single(report.Styles);
        Assert.DoesNotMatch(@"(?i)url\(|@import|https?:", report.Styles[0]);
        Assert.Equal(2, report.Scripts.Count);
        Assert.Contains(ReportAssets.ChartJs, report.Scripts[0]);
        foreach (var script in report.Scripts.Select(script => LicenseComment().Replace(script, string.Empty)))
        {
            Assert.DoesNotMatch(@"(?i)https?://|sourceMappingURL|\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|\bimport\(|importScripts", script);
        }
    }

    [Fact]
    public void ThePolicyLetsOnlyTheReportsOwnInlineScriptsAndStyleRunAndNothingLoad()
    {
        var report = Parse(HtmlReport.Render(SampleRuns.SuiteReport()));

        var policy = Regex.Match(report.Html, "<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">").Groups[1].Value;

        var directives = policy.Split(';', StringSplitOptions.TrimEntries).ToDictionary(directive => directive.Split(' ')[0], directive => directive.Split(' ')[1..]);
        Assert.Equal(["'none'"], directives["default-src"]);
        Assert.Equal(report.Scripts.Select(Hash), directives["script-src"]);
        Assert.Equal(report.Styles.Select(Hash), directives["style-src"]);
        Assert.Equal(["'none'"], directives["base-uri"]);
        Assert.Equal(["'none'"], directives["form-action"]);
        Assert.Equal(5, directives.Count);
    }

    [Fact]
    public void ChartJsIsTheNpmBundleInlinedWithoutItsSourceMapComment()
    {
        var lockFile = JsonDocument.Parse(File.ReadAllText(Path.Combine(AppProcess.RepositoryRoot, "LoadEngine", "package-lock.json")));
        var version = lockFile.RootElement.GetProperty("packages").GetProperty("node_modules/chart.js").GetProperty("version").GetString();
        var bundle = File.ReadAllText(Path.Combine(AppProcess.RepositoryRoot, "LoadEngine", "node_modules", "chart.js", "dist", "chart.umd.min.js"));

        var report = Parse(HtmlReport.Render(ReportContent.ForRun(SampleRuns.Completed("client-wrapper"), GeneratedAt)));

        Assert.Equal("4.6.1", version);
        Assert.Equal(version, ReportAssets.ChartJsVersion);
        Assert.Equal(bundle[..bundle.LastIndexOf("//# sourceMappingURL=", StringComparison.Ordinal)].TrimEnd(), report.Scripts[0]);
        Assert.Matches(@"Made by GrpcBestPractices LoadEngine \S+ with Chart\.js 4\.6\.1, on 2026-11-22 14:08:05 UTC\+01:00\. This file is complete in itself", report.Text);
    }

    [Fact]
    public void StringsFromTheDataAreEscapedAndCannotBecomeMarkupOrLeaveTheJsonBlock()
    {
        const string Name = "<img src=x onerror=alert(1)>";
        const string Error = "</script><script>alert(1)</script><!--";
        const string Threshold = "p99 < 5ms\"><svg onload=alert(2)>";
        const string Status = "<i>Unknown</i>&amp;";
        var run = SampleRuns.Completed(Name, passed: false) with { Error = Error, Measured = "<b>bold</b> & 'quoted'" };
        run = run with
        {
            Verdict = run.Verdict! with { Thresholds = [run.Verdict.Thresholds[0] with { Threshold = Threshold, Unit = "<u>ms</u>" }] },
            Stats = run.Stats! with { StatusCounts = new Dictionary<string, long> { [Status] = 1000 } },
            Series = run.Series! with { Points = [run.Series.Points[0] with { ErrorsByStatus = new Dictionary<string, long> { [Status] = 3 } }] },
        };
        var suite = SampleRuns.Suite(Guid.NewGuid(), Name) with { Error = Error };
        var content = new ReportContent
        {
            Title = "<h1>title</h1>", GeneratedAt = GeneratedAt, Target = "\"><script>alert(3)</script>", Tool = "<marquee>cli</marquee>",
            Suite = suite, Runs = [run, SampleRuns.Failed("x", Error)],
        };

        var report = Parse(HtmlReport.Render(content));

        Assert.Equal(3, Regex.Matches(report.Html, "<script", RegexOptions.IgnoreCase).Count);
        Assert.Equal(3, Regex.Matches(report.Html, "</script", RegexOptions.IgnoreCase).Count);
        // Every element and attribute is one the renderer writes itself; quoted attribute values may hold the text, escaped.
        var tags = Tag().Matches(report.Markup).ToList();
        Assert.All(tags, tag => Assert.Contains(tag.Groups["name"].Value, Elements));
        Assert.All(tags.SelectMany(tag => Attributes(tag.Value)), attribute => Assert.Contains(attribute.Name, AttributeNames));
        Assert.Single(Regex.Matches(report.Html, "<h1>"));
        // Shown as the text it is, everywhere it appears.
        foreach (var text in new[] { Name, Error, Threshold, Status, "<b>bold</b> & 'quoted'", "<h1>title</h1>", "\"><script>alert(3)</script>", "<marquee>cli</marquee>" })
        {
            Assert.Contains(text, report.Text);
        }

        Assert.Equal("<h1>title</h1>", report.Title);
        // The JSON block holds no < > & at all, and still reads back exactly.
        Assert.DoesNotMatch("[<>&]", report.Json);
        Assert.Equal(Error, report.Data.GetProperty("runs")[0].GetProperty("error").GetString());
        Assert.Equal(Name, report.Data.GetProperty("runs")[0].GetProperty("plan").GetProperty("strategy").GetString());
        Assert.True(report.Data.GetProperty("colours").TryGetProperty(Name, out _));
        Assert.Equal(Status, report.Data.GetProperty("runs")[0].GetProperty("stats").GetProperty("statusCounts").EnumerateObject().Single().Name);
    }

    [Theory]
    [InlineData("no series", "No time series: the run recorded its figures only as a whole.")]
    [InlineData("no thresholds", "Verdict: no thresholds were set.")]
    [InlineData("no verdict", "Verdict: ✗ NOT JUDGED — the run ended without a verdict on its thresholds: p99 < 5ms, error_rate < 1%.")]
    [InlineData("failed before any call", "No figures: the run ended before it measured any call.")]
    [InlineData("still running", "No figures yet: the run is still running.")]
    [InlineData("no latency", "No latency: no call after the first succeeded.")]
    [InlineData("a suite with no runs", "Error: the service was not reachable.")]
    public void MissingOptionalPartsRenderWithoutErrors(string missing, string expected)
    {
        var run = SampleRuns.Completed("client-wrapper");
        var content = missing switch
        {
            "no series" => ReportContent.ForRun(run with { Series = null }, GeneratedAt),
            "no thresholds" => ReportContent.ForRun(run with { Verdict = null, Measured = null, Plan = run.Plan with { Thresholds = [] } }, GeneratedAt),
            "no verdict" => ReportContent.ForRun(run with { Verdict = null }, GeneratedAt),
            "failed before any call" => ReportContent.ForRun(SampleRuns.Failed("client-wrapper", "boom"), GeneratedAt),
            "still running" => ReportContent.ForRun(new RunRecord(Guid.NewGuid(), SampleRuns.Plan("client-wrapper"), RunState.Running, SampleRuns.Started, null, null, null, null), GeneratedAt),
            "no latency" => ReportContent.ForRun(run with
            {
                Stats = run.Stats! with { Latency = null, Histogram = [], StatusCounts = new Dictionary<string, long>(), FirstCallMs = null },
                Series = run.Series! with { Points = [] },
            }, GeneratedAt),
            _ => ReportContent.ForSuite(SampleRuns.Suite(Guid.NewGuid(), "client-wrapper") with { State = RunState.Failed, Error = "the service was not reachable." }, [], GeneratedAt),
        };

        var report = Parse(HtmlReport.Render(content));

        Assert.Contains(expected, report.Text);
        Assert.Contains("This file is complete in itself", report.Text);
        Assert.Equal(content.Runs.Count, report.Data.GetProperty("runs").GetArrayLength());
    }

    private static string Hash(string text) => $"'sha256-{Convert.ToBase64String(SHA256.HashData(Encoding.UTF8.GetBytes(text)))}'";

    /// <summary>
    /// The report split as a browser splits it: a script or style element ends at its first closing tag (the renderer
    /// guarantees none inside), so these patterns find exactly the elements the browser finds.
    /// </summary>
    private sealed record Report(string Html, string Markup, string Text, string Title, string Verdict, IReadOnlyList<string> Charts,
        IReadOnlyList<string> Scripts, IReadOnlyList<string> Styles, string Json, JsonElement Data);

    private static Report Parse(string html)
    {
        var scripts = Regex.Matches(html, "<script(?<attributes>[^>]*)>(?<body>.*?)</script>", RegexOptions.Singleline);
        var json = scripts.Single(script => script.Groups["attributes"].Value == " type=\"application/json\" id=\"report-data\"").Groups["body"].Value;
        var styles = Regex.Matches(html, "<style>(?<body>.*?)</style>", RegexOptions.Singleline).Select(style => style.Groups["body"].Value).ToList();
        var markup = Regex.Replace(html, "<(script|style)[^>]*>.*?</\\1>", string.Empty, RegexOptions.Singleline);
        var text = WebUtility.HtmlDecode(Regex.Replace(Regex.Replace(markup, "<[^>]*>", " "), @"\s+", " "));
        var charts = Regex.Matches(markup, "<canvas data-chart=\"([^\"]+)\"(?: data-run=\"(\\d+)\")?")
            .Select(canvas => canvas.Groups[2].Success ? $"{canvas.Groups[1].Value}:{canvas.Groups[2].Value}" : canvas.Groups[1].Value).ToList();
        return new Report(html, markup, text,
            WebUtility.HtmlDecode(Regex.Match(html, "<title>(.*?)</title>").Groups[1].Value),
            Regex.Match(html, "<body data-verdict=\"(\\w+)\">").Groups[1].Value,
            charts,
            scripts.Where(script => script.Groups["attributes"].Value == string.Empty).Select(script => script.Groups["body"].Value).ToList(),
            styles, json, JsonDocument.Parse(json).RootElement);
    }

    private static readonly string[] Elements =
    [
        "html", "head", "meta", "title", "body", "header", "main", "footer", "section", "nav", "div", "h1", "h2", "h3", "p", "strong", "span", "a",
        "label", "input", "ol", "li", "dl", "dt", "dd", "table", "caption", "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "canvas",
        "details", "summary",
    ];

    private static readonly string[] AttributeNames =
    [
        "lang", "charset", "http-equiv", "content", "name", "data-verdict", "class", "id", "type", "aria-labelledby", "aria-label", "aria-hidden",
        "href", "scope", "data-chart", "data-run", "role",
    ];

    /// <summary>A start tag's attributes, each value unescaped and without its quotes (the renderer always quotes them).</summary>
    private static IEnumerable<(string Name, string Value)> Attributes(string tag) =>
        Regex.Matches(tag, @"\s([^\s""'=<>/]+)(?:\s*=\s*(?:""(?<value>[^""]*)""|'(?<value>[^']*)'|(?<value>[^\s""'>]+)))?")
            .Select(attribute => (attribute.Groups[1].Value, WebUtility.HtmlDecode(attribute.Groups["value"].Value)));

    [GeneratedRegex(@"<(?<name>[a-zA-Z][a-zA-Z0-9]*)[^>]*>")]
    private static partial Regex Tag();

    [GeneratedRegex(@"/\*!.*?\*/", RegexOptions.Singleline)]
    private static partial Regex LicenseComment();
}

using Newtonsoft.Json.Serialization;

namespace Workloads;

/// <summary>Newtonsoft.Json with the same camelCase names as <see cref="WorkloadJsonContext"/>, on both sides.</summary>
public static class WorkloadNewtonsoft
{
    public static Newtonsoft.Json.JsonSerializerSettings Settings { get; } = Configure(new());

    public static Newtonsoft.Json.JsonSerializerSettings Configure(Newtonsoft.Json.JsonSerializerSettings settings)
    {
        settings.ContractResolver = new CamelCasePropertyNamesContractResolver();
        settings.DateTimeZoneHandling = Newtonsoft.Json.DateTimeZoneHandling.Utc;
        settings.DateParseHandling = Newtonsoft.Json.DateParseHandling.DateTime;
        return settings;
    }
}

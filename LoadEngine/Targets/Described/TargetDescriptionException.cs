namespace LoadEngine.Targets.Described;

/// <summary>
/// A target that could not be described, a method it does not have, or data that does not fit: its Message is one sentence
/// for the user. What the target put in it (its names, reflection's error_message, protoc's words on its files) is escaped
/// and the sentence bounded here, whoever wrote it (<see cref="TargetText.Escape"/>).
/// </summary>
public sealed class TargetDescriptionException(string message, Exception? inner = null) : Exception(TargetText.Escape(message, MaxLength), inner)
{
    /// <summary>Long enough to list a service's methods or a message's fields; a sentence is cut beyond it.</summary>
    public const int MaxLength = 4 * TargetText.MaxLength;
}

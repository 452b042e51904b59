public enum NotesScreenPlaceholder {}

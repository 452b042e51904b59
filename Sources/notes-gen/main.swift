print("notes-gen: not yet")

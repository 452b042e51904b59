from django.db import models


class Project(models.Model):
    """A default model: Django's auto integer primary key `id`, no ordering of its own."""

    name = models.CharField(max_length=200)
    updated_at = models.DateTimeField()


class Note(models.Model):
    """A project's note; its id is global (server.py's `seed` gives the rule)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="notes")
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)

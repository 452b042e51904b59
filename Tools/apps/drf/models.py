from django.db import models


class Note(models.Model):
    """A default model: Django's auto integer primary key `id`, no ordering of its own."""

    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)

from django.db import models
from wagtail.api import APIField
from wagtail.models import Page


class Note(models.Model):
    """A default model: Django's auto integer primary key `id`, no ordering of its own. django-ninja and
    django-tastypie serve it."""

    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)


class NotePage(Page):
    """A Wagtail page type holding a note: the page's own `title`, and a `body`. Wagtail's pages API
    serves these; the page ids are the notes' ids."""

    body = models.TextField(blank=True)

    api_fields = [APIField("body")]

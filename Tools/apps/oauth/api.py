"""The serializers, paginators and views: DRF's stock classes, subclassed only to set sizes. Authentication
and permissions are the project's defaults (settings.py): django-oauth-toolkit's bearer tokens, scope
"read" for a GET."""

from django.shortcuts import get_object_or_404
from rest_framework import generics, pagination, serializers

from oauth.models import Note, Project


class ProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["id", "name", "updated_at"]


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["id", "project", "title", "body"]


class ProjectPages(pagination.PageNumberPagination):
    page_size = 5


class NotePages(pagination.PageNumberPagination):
    page_size = 4


class Projects(generics.ListAPIView):
    queryset = Project.objects.order_by("id")
    serializer_class = ProjectSerializer
    pagination_class = ProjectPages


class ProjectNotes(generics.ListAPIView):
    """A project's notes; 404 for a project that is not there (after authentication: 401 comes first)."""

    serializer_class = NoteSerializer
    pagination_class = NotePages

    def get_queryset(self):
        project = get_object_or_404(Project, pk=self.kwargs["project"])
        return project.notes.order_by("id")

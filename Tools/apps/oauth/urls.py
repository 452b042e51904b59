from django.urls import path
from oauth2_provider.views import TokenView

from oauth import api

urlpatterns = [
    path("o/token/", TokenView.as_view(), name="token"),
    path("api/projects/", api.Projects.as_view(), name="projects"),
    path("api/projects/<int:project>/notes/", api.ProjectNotes.as_view(), name="project-notes"),
]

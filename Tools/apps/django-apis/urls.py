from django.urls import include, path

from django_apis import api

urlpatterns = [
    path("ninja/", api.ninja_api.urls),
    path("tastypie/api/", include(api.tastypie_api.urls)),
    path("wagtail/api/v2/", api.wagtail_api.urls),
]

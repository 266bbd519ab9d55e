"""The pinners' data exports."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []  # type: ignore[var-annotated]

    operations = [
        migrations.CreateModel(
            name="DataExport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("user_id", models.BigIntegerField(
                    db_index=True, help_text="ID of the pinner's user object")),
                ("state", models.CharField(
                    choices=[("preparing", "being prepared"), ("ready", "ready to download"),
                             ("failed", "failed")],
                    default="preparing", max_length=10)),
                ("requested", models.DateTimeField(default=django.utils.timezone.now)),
                ("finished", models.DateTimeField(
                    blank=True, help_text="When it became ready, or failed", null=True)),
                ("expires", models.DateTimeField(
                    blank=True, db_index=True, help_text="When it is deleted, file and row",
                    null=True)),
                ("size", models.BigIntegerField(blank=True, help_text="Bytes of the zip",
                                                null=True)),
                ("attempts", models.PositiveIntegerField(
                    default=0, help_text="Builds started, each from scratch")),
                ("error", models.CharField(blank=True, max_length=200)),
            ],
            options={
                "ordering": ["-requested"],
                "indexes": [models.Index(fields=["state", "requested"],
                                         name="export_state_requested")],
            },
        ),
    ]

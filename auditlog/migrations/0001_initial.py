"""The operator audit log's table."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []  # type: ignore[var-annotated]

    operations = [
        migrations.CreateModel(
            name="AuditEntry",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("action", models.CharField(db_index=True, max_length=64)),
                ("target", models.CharField(blank=True, db_index=True, max_length=255)),
                ("arguments", models.JSONField(blank=True, default=dict)),
                ("actor_kind", models.CharField(
                    choices=[("admin", "Admin"), ("command", "Command"),
                             ("orchestrator", "Orchestrator"), ("process", "Process")],
                    db_index=True, max_length=16)),
                ("actor", models.CharField(max_length=150)),
                ("actor_detail", models.TextField(blank=True)),
                ("process", models.CharField(max_length=255)),
                ("started", models.DateTimeField(db_index=True)),
                ("finished", models.DateTimeField(blank=True, null=True)),
                ("seconds", models.FloatField(blank=True, null=True)),
                ("outcome", models.CharField(
                    choices=[("running", "Running"), ("ok", "Ok"), ("failed", "Failed")],
                    db_index=True, default="running", max_length=8)),
                ("error", models.TextField(blank=True)),
                ("result", models.JSONField(blank=True, null=True)),
            ],
            options={
                "verbose_name": "audit entry",
                "verbose_name_plural": "audit entries",
                "ordering": ["-started", "-id"],
            },
        ),
    ]

"""The legacy-ID map and the import's batches."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []  # type: ignore[var-annotated]

    operations = [
        migrations.CreateModel(
            name="LegacyBatch",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("pass_id", models.CharField(db_index=True, max_length=32)),
                ("source", models.TextField()),
                ("kind", models.CharField(max_length=16)),
                ("first_id", models.BigIntegerField()),
                ("last_id", models.BigIntegerField()),
                ("done", models.BooleanField(default=False)),
                ("copied", models.IntegerField(default=0)),
                ("waiting", models.IntegerField(default=0)),
                ("rejected", models.IntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="LegacyRecord",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("source", models.CharField(max_length=255)),
                ("kind", models.CharField(max_length=16)),
                ("legacy_id", models.BigIntegerField()),
                ("pinsite_id", models.BigIntegerField(null=True)),
                ("fingerprint", models.CharField(max_length=40)),
                ("rejected", models.TextField(default="")),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("source", "kind", "legacy_id"),
                                                        name="legacy_record_once")],
            },
        ),
    ]

"""The interest slice map."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []  # type: ignore[var-annotated]

    operations = [
        migrations.CreateModel(
            name="InterestSlice",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("interest_id", models.BigIntegerField()),
                ("shard", models.IntegerField()),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("interest_id", "shard"),
                                                        name="interest_slice_unique")],
            },
        ),
    ]

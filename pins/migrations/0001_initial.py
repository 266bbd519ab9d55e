import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Pinner",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("user_id", models.BigIntegerField(help_text="ID of the user object on its shard",
                                                   unique=True)),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("account", models.OneToOneField(on_delete=django.db.models.deletion.PROTECT,
                                                 related_name="pinner",
                                                 to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "ordering": ["-created"],
            },
        ),
    ]
